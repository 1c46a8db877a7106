//! Fields of type `List<T, N>`: `.netidl`'s `list<K, N>`, `K` what `T` lowers to.

use netschema_idl::Spanned as IrSpanned;
use netschema_idl::ir::{FieldType, TypeKind};
use syn::{Expr, GenericArgument, Lit, PathArguments, Type};

use crate::lower::Ctxt;

/// The element type and bound of `List<T, N>` (by the type's name, with or without a path).
pub(crate) fn list_parts(ty: &Type) -> Option<(&Type, &GenericArgument)> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "List" && p.qself.is_none())?;
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [GenericArgument::Type(elem), bound] => Some((elem, bound)),
        _ => None,
    }
}

/// `list<elem, N>` for a field of type `ty`, `List<T, N>` with `N` written as `bound`: an
/// integer literal, or an error (the validator checks its range).
pub(crate) fn lower_list(
    cx: &mut Ctxt,
    ty: &Type,
    elem: FieldType,
    bound: &GenericArgument,
) -> FieldType {
    let len = match bound {
        GenericArgument::Const(Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. })) => {
            n.base10_parse::<u32>().ok()
        }
        _ => None,
    };
    let len: IrSpanned<u32> = match len {
        Some(n) => cx.spanned(n, bound),
        None => {
            cx.error(bound, "a list's bound must be an integer literal: `List<T, 8>`");
            cx.spanned(1, bound)
        }
    };
    FieldType { kind: TypeKind::List { elem: Box::new(elem), len }, span: cx.span(ty) }
}
