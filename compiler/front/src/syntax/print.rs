//! The AST as text (`irgc compile --emit ast`): the derived debug form, with spans as byte ranges, made compact —
//! two spaces a level instead of four, and a one-field tuple variant on one line (`Named("u32") @935..938`) — so a
//! deep program's dump stays readable and its snapshot small (the AST snapshots were half the repository's weight).

use crate::syntax::ast::SourceFile;

pub fn print_ast(file: &SourceFile) -> String {
    compact(&format!("{file:#?}"))
}

/// `{:#?}` output re-indented at two spaces a level, with `X(\n    y,\n)` folded to `X(y)`.
fn compact(debug: &str) -> String {
    let lines: Vec<&str> = debug.lines().collect();
    let mut out = String::with_capacity(debug.len() / 2);
    let mut i = 0;
    while i < lines.len() {
        let (indent, text) = split_indent(lines[i]);
        out.extend(std::iter::repeat_n(' ', indent / 2));
        out.push_str(text);
        i += 1;
        // A one-line value between `X(` and its `)` at the same indent joins the opening line.
        if let (true, Some(inner), Some(close)) = (text.ends_with('('), lines.get(i), lines.get(i + 1)) {
            let ((inner_indent, inner), (close_indent, close)) = (split_indent(inner), split_indent(close));
            if let Some(value) = inner.strip_suffix(',') {
                if inner_indent == indent + 4 && close_indent == indent && close.starts_with(')') {
                    out.push_str(value);
                    out.push_str(close);
                    i += 2;
                }
            }
        }
        out.push('\n');
    }
    out
}

fn split_indent(line: &str) -> (usize, &str) {
    let text = line.trim_start_matches(' ');
    (line.len() - text.len(), text)
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn folds_one_field_variants_and_halves_the_indent() {
        let debug = "A {\n    ty: Named(\n        \"u32\",\n    ) @1..4,\n    b: Some(\n        C {\n            x: 1,\n        },\n    ),\n}";
        assert_eq!(
            compact(debug),
            "A {\n  ty: Named(\"u32\") @1..4,\n  b: Some(\n    C {\n      x: 1,\n    },\n  ),\n}\n"
        );
    }
}
