//! The rules of lists (`list<K, N>`): a bound in
//! [`MIN_LIST_LEN`]`..=`[`MAX_LIST_LEN`], and an element that is not itself a list, nor an
//! array of more than [`MAX_DEFAULT_ARRAY`] elements.

use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::ir::{FieldType, TypeKind};
use crate::limits::{MAX_LIST_LEN, MIN_LIST_LEN};
use crate::span::Spanned;

/// The longest array a list's element may be: a `List` fills its unused elements with
/// `Default::default()`, which Rust gives arrays of at most 32 elements.
const MAX_DEFAULT_ARRAY: u32 = 32;

/// The first array of more than [`MAX_DEFAULT_ARRAY`] elements in `ty`, outside structs.
fn long_array(ty: &FieldType) -> Option<&FieldType> {
    match &ty.kind {
        TypeKind::Array { len, .. } if len.value > MAX_DEFAULT_ARRAY => Some(ty),
        TypeKind::Array { elem, .. } | TypeKind::Vec2(elem) | TypeKind::Vec3(elem) => {
            long_array(elem)
        }
        _ => None,
    }
}

impl Validator<'_> {
    /// Checks a `list<elem, len>` kind and its element's kind.
    pub(super) fn list(&mut self, elem: &FieldType, len: &Spanned<u32>) {
        if !(MIN_LIST_LEN..=MAX_LIST_LEN).contains(&len.value) {
            let label = if len.value < MIN_LIST_LEN { "a list of no element" } else { "too long" };
            self.error(
                Diagnostic::error(format!(
                    "a list's bound must be between {MIN_LIST_LEN} and {MAX_LIST_LEN}"
                ))
                .with_label(len.span, label)
                .with_help("the bound is the most elements the list holds: `list<K, N>`"),
            );
        }
        if let Some(array) = long_array(elem) {
            self.error(
                Diagnostic::error(format!(
                    "a list's element cannot be an array of more than {MAX_DEFAULT_ARRAY} elements"
                ))
                .with_label(array.span, "too long for a list's element")
                .with_help("declare a struct holding the array, and list the struct"),
            );
        }
        if let TypeKind::List { .. } = elem.kind {
            self.error(
                Diagnostic::error("a list cannot hold a list")
                    .with_label(elem.span, "a list inside a list")
                    .with_help("hold a struct with a list field instead, or use one longer list"),
            );
        } else {
            self.ty(elem);
        }
    }
}
