//! The code of a `list<K, N>` field: its table entries (the `head` link, then per slot its
//! `next` link and the element's scalars), and the calls to the facade's `__private::chain`
//! that write a `List` into its slots and read it back, with the element's own code in a
//! closure over the slot's scalars.

use std::slice::Iter;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::table::{Entry, Held, Index};
use super::{Gen, by_ref};
use crate::flatten::ScalarField;
use crate::ir::FieldType;

/// The code of one element, row indices relative to its first scalar.
struct Element {
    /// The statements writing element `v` (a reference) into `raw`.
    quantise: Vec<TokenStream>,
    /// The expression reading one back from `raw`.
    dequantise: TokenStream,
    /// Its number of scalars.
    width: Index,
}

impl<'a> Gen<'a> {
    /// Pushes the table entries of a `list<elem, len>` at `key` (`path` with the indices).
    pub(super) fn list_table(
        &self,
        (elem, len): (&FieldType, u32),
        key: &str,
        path: &str,
        held: Held<'_>,
        scalars: &mut Iter<'_, &ScalarField>,
        out: &mut Vec<Entry>,
    ) {
        let krate = &self.options.crate_path;
        let (cases, bound) = (Literal::u32_unsuffixed(len + 1), Literal::u32_unsuffixed(len));
        let link = |scalars: &mut Iter<'_, &ScalarField>, out: &mut Vec<Entry>| {
            if let Some(s) = scalars.next() {
                let (path, update) = (&s.path, self.update(s));
                let field = quote!(#krate::schema::Field::categorical(#path, #cases).with_meaning(#krate::schema::list_link_meaning(#bound)) #update);
                out.push(Entry::Scalar { field, own: (false, false), step: quote!(0.0) });
            }
        };
        link(scalars, out);
        for s in 0..len {
            link(scalars, out);
            self.table(elem, key, &format!("{path}[{s}]"), held, scalars, out);
        }
    }

    /// The code of an element of kind `elem` at `key`, whose slot 0 starts at row index
    /// `slot0`.
    fn element(&self, elem: &FieldType, key: &str, slot0: &Index) -> Element {
        let fields = &self.fields;
        let scoped = self.scoped(quote!(#fields[#slot0..]));
        let mut width = Index::default();
        let mut quantise = Vec::new();
        scoped.quantise(elem, key, by_ref(elem, &format_ident!("v")), &mut width, &mut quantise);
        let dequantise = scoped.dequantise(elem, key, &mut Index::default());
        self.absorb(scoped);
        Element { quantise, dequantise, width }
    }

    /// Pushes the statement writing `value` (a `List` lvalue of kind `list<elem, len>` at
    /// `key`) into the row from `raw[*at]` on, moving `at` past it.
    pub(super) fn list_quantise(
        &self,
        (elem, len): (&FieldType, u32),
        key: &str,
        value: TokenStream,
        at: &mut Index,
        out: &mut Vec<TokenStream>,
    ) {
        let krate = &self.options.crate_path;
        let (first, report) = (at.clone(), self.report(at));
        let Element { quantise, width, .. } = self.element(elem, key, &first.plus(2));
        skip_list(at, &width, len);
        let fields = &self.fields;
        out.push(quote! {
            #krate::__private::chain::write(
                &#value,
                &mut raw[#first..#at],
                &#fields[#first..#at],
                &mut [0i32; #width],
                #report,
                clamped,
                |v, raw, clamped| { #(#quantise)* },
            );
        });
    }

    /// The expression reading a `list<elem, len>` at `key` from `raw[*at]` on, moving `at`
    /// past it.
    pub(super) fn list_dequantise(
        &self,
        (elem, len): (&FieldType, u32),
        key: &str,
        at: &mut Index,
    ) -> TokenStream {
        let krate = &self.options.crate_path;
        let first = at.clone();
        let Element { dequantise, width, .. } = self.element(elem, key, &first.plus(2));
        skip_list(at, &width, len);
        let n = Literal::u32_unsuffixed(len);
        quote!(#krate::__private::chain::read::<_, #n>(&raw[#first..#at], #width, |raw| #dequantise))
    }
}

/// Moves `at` past a list of `len` elements of `width` scalars: its head, then per slot a
/// link and an element.
fn skip_list(at: &mut Index, width: &Index, len: u32) {
    at.advance(1);
    for _ in 0..len {
        at.advance(1);
        at.add(width);
    }
}
