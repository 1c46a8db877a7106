//! `#[derive(Protocol)]`: a schema declared as an enum over its classes.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::lower::{Ctxt, item_options};
use netschema_idl::codegen;

/// `#[derive(Protocol)]` on an enum whose variants each hold one `Snapshot` type, in class
/// order; `#[netschema(name = "...")]` names the schema (default: the enum's name).
pub(crate) fn protocol(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut cx = Ctxt::default();
    let mut name: Option<syn::LitStr> = None;
    let read_name = &mut |cx: &mut Ctxt, meta: &syn::meta::ParseNestedMeta<'_>| {
        if !meta.path.is_ident("name") {
            return Ok(false);
        }
        let lit: syn::LitStr = meta.value()?.parse()?;
        if name.replace(lit).is_some() {
            cx.error(&meta.path, "duplicate `name` attribute");
        }
        Ok(true)
    };
    let options = item_options(
        &mut cx,
        &input.attrs,
        read_name,
        "unknown netschema attribute on the enum: expected `name = \"schema\"` or `crate = \"path\"`",
    );
    if !input.generics.params.is_empty() {
        cx.error(&input.generics, "`Protocol` cannot be derived for generic enums");
    }
    let mut variants = Vec::new();
    match &input.data {
        Data::Enum(data) => {
            if data.variants.is_empty() {
                cx.error(
                    &input.ident,
                    "a schema needs at least one class: add a variant per class",
                );
            }
            for v in &data.variants {
                match &v.fields {
                    Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                        let ty = &f.unnamed[0].ty;
                        variants.push((v.ident.clone(), quote!(#ty)));
                    }
                    _ => cx.error(
                        v,
                        "each variant of a `Protocol` enum holds one class: `Player(Player)`",
                    ),
                }
                if let Some(d) = &v.discriminant {
                    cx.error(
                        &d.1,
                        "class indices follow the variants' order: remove the discriminant",
                    );
                }
            }
        }
        _ => cx.error(
            &input.ident,
            "`Protocol` can only be derived for an enum with one variant per class",
        ),
    }
    cx.finish()?;
    let ident = &input.ident;
    let name = name.map_or_else(|| ident.to_string(), |n| n.value());
    Ok(codegen::protocol_impl(&name, &quote!(#ident), &variants, None, &options))
}
