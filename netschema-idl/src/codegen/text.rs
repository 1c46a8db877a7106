//! The code of a class's strings and byte blobs (`string<N>`, `bytes<N>`): its
//! `Class::texts` table and the `Snapshot` methods reading and setting them.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Options, ident};
use crate::ir::Class;

/// A class's text fields: the `Class::texts` table and the `Snapshot` methods.
pub(super) struct Texts {
    /// The table, `&[TextField::string("name", 16), …]`.
    pub(super) table: TokenStream,
    /// `Snapshot::text` and `Snapshot::set_text`, or nothing for a class without text fields.
    pub(super) methods: TokenStream,
}

/// The text fields of class `c`, in declaration order.
pub(super) fn texts(c: &Class, options: &Options) -> Texts {
    let krate = &options.crate_path;
    let texts: Vec<_> = c.texts().collect();
    if texts.is_empty() {
        return Texts { table: quote!(&[]), methods: TokenStream::new() };
    }
    let entries = texts.iter().map(|(f, max, utf8)| {
        let (name, max) = (&f.name, Literal::u16_unsuffixed(u16::try_from(*max).unwrap_or(0)));
        if *utf8 {
            quote!(#krate::schema::TextField::string(#name, #max))
        } else {
            quote!(#krate::schema::TextField::bytes(#name, #max))
        }
    });
    let members: Vec<syn::Ident> = texts.iter().map(|(f, _, _)| ident(&f.name)).collect();
    let index: Vec<Literal> = (0..texts.len()).map(Literal::usize_unsuffixed).collect();
    Texts {
        table: quote!(&[#(#entries),*]),
        methods: quote! {
            fn text(&self, text: usize) -> &[u8] {
                match text {
                    #(#index => self.#members.as_bytes(),)*
                    _ => &[],
                }
            }
            fn set_text(&mut self, text: usize, bytes: &[u8]) -> bool {
                match text {
                    #(#index => match #krate::text::Bounded::from_bytes(bytes) {
                        ::core::result::Result::Ok(v) => {
                            self.#members = v;
                            true
                        }
                        ::core::result::Result::Err(_) => false,
                    },)*
                    _ => false,
                }
            }
        },
    }
}
