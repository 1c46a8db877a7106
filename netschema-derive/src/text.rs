//! Fields of type `Text<N>` or `Blob<N>`: `.netidl`'s `string<N>` and `bytes<N>`.

use netschema_idl::ir::{FieldType, TypeKind};
use syn::{Expr, GenericArgument, Lit, PathArguments, Type};

use crate::lower::Ctxt;

/// The bound of `Text<N>` or `Blob<N>` (by the type's name, with or without a path), and
/// whether it is a `Text`.
pub(crate) fn text_parts(ty: &Type) -> Option<(&GenericArgument, bool)> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last().filter(|s| p.qself.is_none() && is_text(&s.ident))?;
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [bound] => Some((bound, last.ident == "Text")),
        _ => None,
    }
}

fn is_text(ident: &syn::Ident) -> bool {
    ident == "Text" || ident == "Blob"
}

/// `string<N>` (`utf8`) or `bytes<N>` for a field of type `ty`, with `N` written as `bound`:
/// an integer literal, or an error (the validator checks its range).
pub(crate) fn lower_text(
    cx: &mut Ctxt,
    ty: &Type,
    bound: &GenericArgument,
    utf8: bool,
) -> FieldType {
    let max = match bound {
        GenericArgument::Const(Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. })) => {
            n.base10_parse::<u32>().ok()
        }
        _ => None,
    };
    let max = match max {
        Some(n) => cx.spanned(n, bound),
        None => {
            let example = if utf8 { "Text<32>" } else { "Blob<32>" };
            cx.error(bound, format!("the bound must be an integer literal: `{example}`"));
            cx.spanned(1, bound)
        }
    };
    FieldType { kind: TypeKind::Text { max, utf8 }, span: cx.span(ty) }
}
