//! The AST as text (`irgc compile --emit ast`): the derived debug form, with spans as byte ranges.

use crate::syntax::ast::SourceFile;

pub fn print_ast(file: &SourceFile) -> String {
    format!("{file:#?}\n")
}
