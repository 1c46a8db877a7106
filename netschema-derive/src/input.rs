//! `#[derive(Input)]`: a client input type, `.netidl`'s `input` item.

use netschema_idl::codegen;
use netschema_idl::ir::{Input, Schema};
use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;
use syn::ext::IdentExt;

use crate::lower::{Ctxt, docs, item_options, lower_fields, named_fields, validate};

/// `#[derive(Input)]` on a struct with named fields: its fields lowered as a class's, checked
/// by the validator's rules for inputs, and `Snapshot` and `Input` implemented by the code
/// generator, as for a `.netidl` `input` item.
pub(crate) fn input(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut cx = Ctxt::default();
    let mut options = item_options(
        &mut cx,
        &input.attrs,
        &mut |_, _| Ok(false),
        "unknown netschema attribute on the input: expected `crate = \"path\"` (an input is sent whole every tick: it has no update groups or schedule)",
    );
    let Some(fields) = named_fields(&mut cx, input, "Input") else {
        cx.finish()?;
        return Ok(TokenStream::new());
    };
    let mut schema = Schema::new("derive");
    let mut item = Input::new(input.ident.unraw().to_string(), []);
    item.docs = docs(&input.attrs);
    item.span = cx.span(&input.ident);
    item.fields = lower_fields(&mut cx, &mut schema, &mut options, &item.name, fields);
    let lowered = item.fields.len();
    schema.inputs.push(item);
    validate(&mut cx, &schema, lowered, fields.len());
    cx.finish()?;
    let ident = &input.ident;
    Ok(codegen::input_impl(&schema, schema.inputs.len() - 1, &quote!(#ident), &options))
}
