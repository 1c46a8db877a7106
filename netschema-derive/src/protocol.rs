//! `#[derive(Protocol)]`: a schema declared as an enum over its classes.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Data, DeriveInput, Fields};

use crate::lower::{Ctxt, item_options};
use netschema_idl::codegen;
use netschema_idl::ir::ModelPolicy;
use netschema_idl::limits::MAX_RATE;

/// `#[derive(Protocol)]` on an enum whose variants each hold one `Snapshot` type, in class
/// order; `#[netschema(name = "...")]` names the schema (default: the enum's name),
/// `#[netschema(models = "...")]` chooses its model policy (`per-frame`, the default,
/// `batched` or `batched:B:K`; the `.netidl` `models` statement),
/// `#[netschema(rate = 60)]` declares its frame rate (the `.netidl` `rate` statement) and
/// `#[netschema(prior = "file")]` embeds a prior (relative to the crate's manifest);
/// `#[netschema(contract = "path")]` attaches the predictive contract at `path` (a `static`),
/// under the name `contract_name = "..."` (default: the path as written);
/// `#[netschema(events(Hit, Heal))]` declares the events it may send, in index order.
pub(crate) fn protocol(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut cx = Ctxt::default();
    let mut name: Option<syn::LitStr> = None;
    let mut policy: Option<ModelPolicy> = None;
    let mut prior: Option<syn::LitStr> = None;
    let mut rate: Option<u32> = None;
    let mut contract: Option<syn::LitStr> = None;
    let mut contract_name: Option<syn::LitStr> = None;
    let mut events: Vec<(String, syn::Path)> = Vec::new();
    let read = &mut |cx: &mut Ctxt, meta: &syn::meta::ParseNestedMeta<'_>| {
        if meta.path.is_ident("name") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            if name.replace(lit).is_some() {
                cx.error(&meta.path, "duplicate `name` attribute");
            }
        } else if meta.path.is_ident("prior") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            if prior.replace(lit).is_some() {
                cx.error(&meta.path, "duplicate `prior` attribute");
            }
        } else if meta.path.is_ident("rate") {
            let lit: syn::LitInt = meta.value()?.parse()?;
            match lit.base10_parse::<u32>() {
                Ok(hz) if (1..=MAX_RATE).contains(&hz) => {
                    if rate.replace(hz).is_some() {
                        cx.error(&meta.path, "duplicate `rate` attribute");
                    }
                }
                _ => cx.error(
                    &lit,
                    format!("`rate` is a whole number of frames per second from 1 to {MAX_RATE}"),
                ),
            }
        } else if meta.path.is_ident("events") {
            meta.parse_nested_meta(|e| {
                let name = e.path.to_token_stream().to_string();
                if events.iter().any(|(n, _)| *n == name) {
                    cx.error(&e.path, "this event is listed twice: each event has one index");
                }
                events.push((name, e.path));
                Ok(())
            })?;
        } else if meta.path.is_ident("contract") || meta.path.is_ident("contract_name") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            let slot =
                if meta.path.is_ident("contract") { &mut contract } else { &mut contract_name };
            if slot.replace(lit).is_some() {
                cx.error(&meta.path, "duplicate contract attribute");
            }
        } else if meta.path.is_ident("models") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            match lit.value().parse() {
                Ok(p) if policy.replace(p).is_some() => {
                    cx.error(&meta.path, "duplicate `models` attribute");
                }
                Ok(_) => {}
                Err(()) => cx.error(
                    &lit,
                    "`models` is `per-frame`, `batched` or `batched:B:K` (batches of B frames, \
                     K models kept; B from 1 to 255, K from 1 to 16)",
                ),
            }
        } else {
            return Ok(false);
        }
        Ok(true)
    };
    let options = item_options(
        &mut cx,
        &input.attrs,
        read,
        "unknown netschema attribute on the enum: expected `name = \"schema\"`, \
         `models = \"policy\"`, `rate = HZ`, `prior = \"file\"`, `contract = \"path\"`, \
         `contract_name = \"name\"`, `events(Hit, ...)` or `crate = \"path\"`",
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
    let contract = match (contract, contract_name) {
        (Some(path), name) => match path.parse::<syn::Path>() {
            Ok(p) => Some((name.unwrap_or_else(|| path.clone()).value(), p)),
            Err(_) => {
                cx.error(&path, "`contract` is the path of a `static` implementing `Contract`");
                None
            }
        },
        (None, Some(name)) => {
            cx.error(&name, "`contract_name` names a `contract = \"path\"`, which is missing");
            None
        }
        (None, None) => None,
    };
    cx.finish()?;
    let options = match contract {
        Some((name, path)) => options.contract(name, path),
        None => options,
    };
    let ident = &input.ident;
    let name = name.map_or_else(|| ident.to_string(), |n| n.value());
    // A prior's path is relative to the crate's manifest, as `include_bytes!` cannot be.
    let prior = prior.map(|p| quote!(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/", #p))));
    let events: Vec<TokenStream> = events.iter().map(|(_, p)| quote!(#p)).collect();
    let events = codegen::with_events(&events, &options);
    let start = codegen::starting(policy.unwrap_or_default(), rate, prior, &options);
    let start = quote!(#events #start);
    Ok(codegen::protocol_impl(&name, &quote!(#ident), &variants, None, start, &options))
}
