//! Inputs: a Rust struct per `.netidl` `input` item, and for it and `#[derive(Input)]` the
//! `Snapshot` impl of its one class and the `Input` impl naming its input schema.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Options, class_impl, default_value, doc_attrs, has_long_array, ident, member};
use crate::ir::{Input, Schema};
use crate::limits::MAX_INPUT_FIELDS;

/// Generates `impl Snapshot` and `impl Input` for `#self_ty`, input `index` of `schema` (the
/// derive's `#[derive(Input)]`; [`generate`](super::generate) uses it for every input): the
/// input's fields as the one class of its input schema, named after the input
/// (`Schema::new("Move", &[<Move as Snapshot>::CLASS])`), with compile-time checks that the
/// class is one the runtime's input stream takes (`engine::input::fits`), which the
/// validator cannot see through the structs the derive holds.
///
/// # Panics
///
/// If `index` is not an index of `schema.inputs`.
pub fn input_impl(
    schema: &Schema,
    index: usize,
    self_ty: &TokenStream,
    options: &Options,
) -> TokenStream {
    let krate = &options.crate_path;
    let input = &schema.inputs[index];
    let snapshot = class_impl(schema, &input.as_class(), self_ty, options);
    let name = &input.name;
    let schema = super::one_class_schema(name, krate);
    let max = Literal::usize_unsuffixed(MAX_INPUT_FIELDS);
    let too_many = format!(
        "input `{name}` has more than {MAX_INPUT_FIELDS} scalar fields (`engine::input::MAX_INPUT_FIELDS`)"
    );
    let inexact = format!(
        "input `{name}` has a scalar field with a tolerance: inputs are exact (`engine::input::fits`)"
    );
    quote! {
        #snapshot
        #[automatically_derived]
        impl #krate::Input for #self_ty {
            const SCHEMA: &'static #krate::schema::Schema = #schema;
        }
        const _: () = {
            let class = &<#self_ty as #krate::Snapshot>::CLASS;
            ::core::assert!(class.fields.len() <= #max, #too_many);
            ::core::assert!(#krate::engine::input::fits(class), #inexact);
        };
    }
}

/// An input of a `.netidl` schema: a plain Rust struct with [`input_impl`].
pub(super) fn input_item(schema: &Schema, index: usize, options: &Options) -> TokenStream {
    let input = &schema.inputs[index];
    let what = "what a client sends the server each tick";
    let name = ident(&input.name);
    fields_item(
        schema,
        input,
        "input",
        what,
        input_impl(schema, index, &quote!(#name), options),
        options,
    )
}

/// The Rust struct of an input or event `item` of `schema` (`keyword`: `input` or `event`;
/// `what`: what it is, for its default docs), followed by `imp`, its impls.
pub(super) fn fields_item(
    schema: &Schema,
    item: &Input,
    keyword: &str,
    what: &str,
    imp: TokenStream,
    options: &Options,
) -> TokenStream {
    let name = ident(&item.name);
    let docs = if item.docs.is_empty() {
        doc_attrs(&format!(
            "The `{}` {keyword} of the `{}` schema: {what}.",
            item.name, schema.name
        ))
    } else {
        doc_attrs(&item.docs)
    };
    let fields = item.fields.iter().map(|f| member(f, options));
    let long = item.fields.iter().any(|f| has_long_array(&f.ty));
    let (derive_default, default_impl) = if long {
        let inits = item.fields.iter().map(|f| {
            let (member, value) = (ident(&f.name), default_value(&f.ty));
            quote!(#member: #value)
        });
        let default = quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self { Self { #(#inits),* } }
            }
        };
        (quote!(), default)
    } else {
        (quote!(Default,), quote!())
    };
    quote! {
        #docs
        #[derive(Clone, Copy, Debug, PartialEq, #derive_default)]
        pub struct #name { #(#fields),* }
        #default_impl
        #imp
    }
}
