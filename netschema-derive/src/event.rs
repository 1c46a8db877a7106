//! `#[derive(Event)]`: an event type, sent once to a client over the record stream.

use netschema_idl::codegen;
use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput};

use crate::lower::class;

/// `#[derive(Event)]` on a struct with named fields: its fields lowered as a class's
/// (references need `#[netschema(protocol = "Game")]`, as on a class), `Snapshot`
/// implemented for that class and `event::Event` naming the event schema.
pub(crate) fn event(input: &DeriveInput) -> syn::Result<TokenStream> {
    if let Data::Struct(s) = &input.data
        && s.fields.is_empty()
    {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "an event needs at least one field: `struct Hit { #[netschema(int(0, 255))] damage: u8 }`",
        ));
    }
    let Some((schema, options)) = class(input, "Event")? else {
        return Ok(TokenStream::new());
    };
    let ident = &input.ident;
    let self_ty = quote!(#ident);
    let snapshot = codegen::snapshot_impl(&schema, 0, &self_ty, &options);
    let event = codegen::event_impl(&input.ident.unraw().to_string(), &self_ty, &options);
    Ok(quote!(#snapshot #event))
}
