//! `#[derive(SnapshotStruct)]`: a struct that classes (and other structs) hold as a field,
//! flattened in place as `.netidl`'s `struct`.

use netschema_idl::codegen;
use netschema_idl::ir::{Schema, Struct};
use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::{DeriveInput, GenericArgument, PathArguments, Type};

use crate::lower::{Ctxt, item_options, lower_fields, named_fields, validate};

/// `#[derive(SnapshotStruct)]`.
pub(crate) fn snapshot_struct(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut cx = Ctxt::default();
    let mut options = item_options(
        &mut cx,
        &input.attrs,
        &mut |_, _| Ok(false),
        "unknown netschema attribute on the struct: expected `crate = \"path\"` (update groups and schedules belong to the classes holding it)",
    );
    let Some(fields) = named_fields(&mut cx, input, "SnapshotStruct") else {
        cx.finish()?;
        return Ok(TokenStream::new());
    };
    let name = input.ident.unraw().to_string();
    let recursive: Vec<&syn::Field> =
        fields.iter().filter(|f| holds(&f.ty, &input.ident)).collect();
    for f in &recursive {
        cx.error(
            &f.ty,
            format!(
                "struct `{name}` holds itself\n= note: a struct has a fixed number of scalars, flattened into the classes holding it\n= help: give each level of nesting its own struct"
            ),
        );
    }
    if !recursive.is_empty() {
        cx.finish()?;
        return Ok(TokenStream::new());
    }
    let mut schema = Schema::new("derive");
    let mut s = Struct::new(name, []);
    s.span = cx.span(&input.ident);
    s.fields = lower_fields(&mut cx, &mut schema, &mut options, &s.name, fields);
    let lowered = s.fields.len();
    schema.structs.push(s);
    validate(&mut cx, &schema, lowered, fields.len());
    cx.finish()?;
    let ident = &input.ident;
    Ok(codegen::struct_impl(&schema, schema.structs.len() - 1, &quote!(#ident), &options))
}

/// Whether `ty` is `me`, or arrays or `Option`s of it: a struct holding itself, which the
/// compiler would report as a type of infinite size. (A struct holding itself through another
/// struct is left to that report.)
fn holds(ty: &Type, me: &syn::Ident) -> bool {
    match ty {
        Type::Array(a) => holds(&a.elem, me),
        Type::Group(g) => holds(&g.elem, me),
        Type::Paren(p) => holds(&p.elem, me),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else { return false };
            match &last.arguments {
                PathArguments::None => {
                    p.path.segments.len() == 1 && (last.ident == *me || last.ident == "Self")
                }
                PathArguments::AngleBracketed(args) => args.args.iter().any(|arg| match arg {
                    GenericArgument::Type(inner) => holds(inner, me),
                    _ => false,
                }),
                PathArguments::Parenthesized(_) => false,
            }
        }
        _ => false,
    }
}
