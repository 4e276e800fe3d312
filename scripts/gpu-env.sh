# Sourced by the gpu-*.sh scripts (run on the GPU machine from the repository root): the carried binary and
# libraries, and `gen_graphs DIR CLASS...`, which writes the graph classes of ../shared/notes/performance.md with
# ../shared's own generator. ../shared does not travel to the GPU machine: copy tools/gen_graphs.py and
# data/FLA.gr.xz (the `road` class) into .carry/ first.
if [ -d .carry/lib ]; then
  export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
IRGC=${IRGC:-.carry/irgc}

gen_graphs() {
  local dir=$1
  shift
  GEN_ROAD=${GEN_ROAD:-.carry/FLA.gr.xz} python3 "${GEN_GRAPHS:-.carry/gen_graphs.py}" "$dir" "$@" >/dev/null
}
