//! Events: a Rust struct per `.netidl` `event` item, for it and `#[derive(Event)]` the `Event`
//! impl naming its event schema, and for a protocol the list of events it declares.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Options, class_impl, ident, input::fields_item};
use crate::ir::Schema;

/// Generates `impl event::Event for #self_ty`, whose `Snapshot` impl exists: an event schema
/// named `name` with the type's class as its one class, and a compile-time check that the
/// class is one an event may have (`event::fits`: a field at least, one update group, no
/// timeline, at most `event::MAX_EVENT_FIELDS` scalars, a longest record within a record's).
pub fn event_impl(name: &str, self_ty: &TokenStream, options: &Options) -> TokenStream {
    let krate = &options.crate_path;
    let schema = super::one_class_schema(name, krate);
    let unfit = format!(
        "event `{name}` does not fit an event record: it needs a field, at most \
         `event::MAX_EVENT_FIELDS` scalar fields, `schema::MAX_TEXTS` strings and blobs, a \
         longest record within `MAX_RECORD_LEN`, no update groups and no timeline (`event::fits`)"
    );
    quote! {
        #[automatically_derived]
        impl #krate::event::Event for #self_ty {
            const SCHEMA: &'static #krate::schema::Schema = #schema;
        }
        const _: () = ::core::assert!(
            #krate::event::fits(&<#self_ty as #krate::Snapshot>::CLASS),
            #unfit
        );
    }
}

/// The builder call that declares events `tys` on a protocol's schema, in index order
/// (`.with_events(&[<Hit as Event>::SCHEMA, …])`), or nothing without events.
pub fn with_events(tys: &[TokenStream], options: &Options) -> TokenStream {
    if tys.is_empty() {
        return TokenStream::new();
    }
    let krate = &options.crate_path;
    quote!(.with_events(&[#(<#tys as #krate::event::Event>::SCHEMA),*]))
}

/// An event of a `.netidl` schema: a plain Rust struct with its `Snapshot` impl (its one
/// class) and [`event_impl`].
pub(super) fn event_item(schema: &Schema, index: usize, options: &Options) -> TokenStream {
    let event = &schema.events[index];
    let name = ident(&event.name);
    let self_ty = quote!(#name);
    let snapshot = class_impl(schema, &event.as_class(), &self_ty, options);
    let imp = event_impl(&event.name, &self_ty, options);
    let what = "what the server sends a client once";
    fields_item(schema, event, "event", what, quote!(#snapshot #imp), options)
}
