//! The scalar table of a class or a derived struct, and where each scalar sits in a row.
//!
//! A table lists each scalar's `schema::Field` expression. When the type holds external
//! structs (Rust types the derive refers to, whose scalars only the compiler knows), the table
//! is built in `const` items instead, from the facade's `__private::Part`s: the type's own
//! scalars and, for each external struct it holds, that struct's `SnapshotStruct::SCALARS`
//! under its path, with the holding field's clauses; a row index is then a literal plus the
//! scalar counts of the external structs before it.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote};

use crate::ir::{Field, PredictClause, Predictor};

/// A scalar's index in a row: a literal plus the scalar counts of the external structs before
/// it.
#[derive(Clone, Default)]
pub(super) struct Index {
    lit: usize,
    counts: Vec<TokenStream>,
}

impl Index {
    /// This index `n` scalars on.
    pub(super) fn plus(&self, n: usize) -> Index {
        Index { lit: self.lit + n, counts: self.counts.clone() }
    }

    /// The literal part: unique among the scalars of a row that are not in external structs.
    pub(super) fn literal(&self) -> usize {
        self.lit
    }

    /// Moves the index past `n` scalars.
    pub(super) fn advance(&mut self, n: usize) {
        self.lit += n;
    }

    /// Moves the index past `other` scalars (an index counted from 0).
    pub(super) fn add(&mut self, other: &Index) {
        self.lit += other.lit;
        self.counts.extend(other.counts.iter().cloned());
    }

    /// Moves the index past the scalars of external struct `ty`.
    pub(super) fn skip(&mut self, ty: &TokenStream, krate: &syn::Path) {
        self.counts.push(quote!(<#ty as #krate::SnapshotStruct>::SCALARS.len()));
    }
}

impl ToTokens for Index {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let lit = Literal::usize_unsuffixed(self.lit);
        let counts = &self.counts;
        match (self.lit, counts.split_first()) {
            (_, None) => lit.to_tokens(tokens),
            (0, Some((first, rest))) => quote!(#first #(+ #rest)*).to_tokens(tokens),
            (_, Some(_)) => quote!(#lit #(+ #counts)*).to_tokens(tokens),
        }
    }
}

/// The clauses the scalars under a path take, from the innermost field on it that writes
/// each (as `flatten` gives them), with the field of the type being generated they are under.
#[derive(Clone, Copy)]
pub(super) struct Held<'a> {
    /// The index of the field in the class or struct being generated.
    pub(super) field: usize,
    /// The field's update group.
    pub(super) group: u8,
    pub(super) predict: Option<&'a PredictClause>,
    pub(super) tolerance: Option<f64>,
}

impl<'a> Held<'a> {
    /// The clauses of field `index` (in update group `group`) of the type being generated.
    pub(super) fn top(index: usize, group: u8, field: &'a Field) -> Held<'a> {
        Held { field: index, group, predict: None, tolerance: None }.within(field)
    }

    /// These clauses inside `field`: its own win.
    pub(super) fn within(self, field: &'a Field) -> Held<'a> {
        Held {
            predict: field.predict.as_ref().or(self.predict),
            tolerance: field.tolerance.as_ref().map(|t| t.value).or(self.tolerance),
            ..self
        }
    }
}

/// One entry of a table, in wire order.
pub(super) enum Entry {
    /// A scalar the schema describes: its `schema::Field` expression, whether its path writes
    /// `predict` and a tolerance, and its step in natural units (an `f64` expression).
    Scalar { field: TokenStream, own: (bool, bool), step: TokenStream },
    /// The scalars of external struct `ty` at `path`, under the clauses `held`.
    External { ty: TokenStream, path: String, held: HeldTokens },
}

/// The clauses of a field holding an external struct, as the facade's `__private::Nested`
/// takes them.
pub(super) struct HeldTokens {
    field: usize,
    group: u8,
    predictors: Option<TokenStream>,
    tolerance: Option<f64>,
}

impl HeldTokens {
    pub(super) fn new(held: &Held<'_>, krate: &syn::Path) -> HeldTokens {
        let predictors = held.predict.map(|clause| {
            let preds = clause.predictors.iter().map(|p| predictor(p.value, krate));
            quote!(&[#(#preds),*])
        });
        HeldTokens { field: held.field, group: held.group, predictors, tolerance: held.tolerance }
    }
}

/// The runtime's `Predictor` of `p`.
pub(super) fn predictor(p: Predictor, krate: &syn::Path) -> TokenStream {
    let variant = syn::Ident::new(
        match p {
            Predictor::Zero => "Zero",
            Predictor::Hold => "Hold",
            Predictor::Linear => "Linear",
            Predictor::Quadratic => "Quadratic",
            Predictor::Cubic => "Cubic",
            Predictor::Contract => "Contract",
        },
        proc_macro2::Span::call_site(),
    );
    quote!(#krate::model::predict::Predictor::#variant)
}

/// A table ready to emit.
pub(super) struct Table {
    /// `const` items to place next to the impl: the parts, the paths, the scalars, the fields
    /// and the checks of the clauses reaching into external structs.
    pub(super) items: TokenStream,
    /// An expression of type `&'static [schema::Field]`.
    pub(super) fields: TokenStream,
}

/// Assembles `entries` of the type called `owner` with fields `fields`: a literal list of
/// fields, unless the type holds external structs or `parts` asks for the parts (which a
/// derived struct lists as its `SnapshotStruct::SCALARS`: the `const` `SCALARS`).
pub(super) fn assemble(
    entries: Vec<Entry>,
    owner: &str,
    fields: &[Field],
    parts: bool,
    krate: &syn::Path,
) -> Table {
    let external = entries.iter().any(|e| matches!(e, Entry::External { .. }));
    if !external && !parts {
        let fields = entries.into_iter().filter_map(|e| match e {
            Entry::Scalar { field, .. } => Some(field),
            Entry::External { .. } => None,
        });
        return Table { items: TokenStream::new(), fields: quote!(&[#(#fields),*]) };
    }
    let checks = checks(&entries, owner, fields, krate);
    let parts = entries.into_iter().map(|e| match e {
        Entry::Scalar { field, own: (p, t), step } => quote! {
            #krate::__private::Part::Scalar(#krate::nested::Scalar {
                field: #field, own_predict: #p, own_tolerance: #t, step: #step,
            })
        },
        Entry::External { ty, path, held } => {
            let HeldTokens { field, group, predictors, tolerance } = held;
            let predictors = match predictors {
                Some(p) => quote!(::core::option::Option::Some(#p)),
                None => quote!(::core::option::Option::None),
            };
            let tolerance = match tolerance {
                Some(v) => {
                    let v = super::float_lit(v);
                    quote!(::core::option::Option::Some(#v))
                }
                None => quote!(::core::option::Option::None),
            };
            let (field, group) = (Literal::usize_unsuffixed(field), Literal::u8_unsuffixed(group));
            quote! {
                #krate::__private::Part::Nested(#krate::__private::Nested {
                    prefix: #path,
                    scalars: <#ty as #krate::SnapshotStruct>::SCALARS,
                    field: #field,
                    predictors: #predictors,
                    tolerance: #tolerance,
                    group: #group,
                })
            }
        }
    });
    let p = quote!(#krate::__private);
    let items = quote! {
        const PARTS: &[#p::Part] = &[#(#parts),*];
        const PATHS: [u8; #p::names_len(PARTS)] = #p::names(PARTS);
        const SCALARS: [#krate::nested::Scalar; #p::count(PARTS)] = #p::scalars(PARTS, &PATHS);
        const FIELDS: [#krate::schema::Field; #p::count(PARTS)] = #p::fields(&SCALARS);
        #checks
    };
    Table { items, fields: quote!(&FIELDS) }
}

/// Compile-time checks of the clauses of the fields holding external structs, as the
/// validator checks them on the structs it sees: each reaches a numeric scalar, and a
/// tolerance suits every grid it reaches.
fn checks(entries: &[Entry], owner: &str, fields: &[Field], krate: &syn::Path) -> TokenStream {
    let mut holders: Vec<usize> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::External { held, .. } => Some(held.field),
            Entry::Scalar { .. } => None,
        })
        .collect();
    holders.dedup();
    let p = quote!(#krate::__private);
    let mut out = TokenStream::new();
    for index in holders {
        let Some(f) = fields.get(index) else { continue };
        let at = format!("field `{owner}.{}`", f.name);
        let i = Literal::usize_unsuffixed(index);
        if f.predict.is_some() {
            let msg = format!(
                "`predict(...)` on {at} reaches no numeric scalar: the types it holds have only bools and enums, or numeric fields that write their own"
            );
            out.extend(quote!(
                const _: () = ::core::assert!(#p::reaches(PARTS, #i, #p::Clause::Predict), #msg);
            ));
        }
        if f.tolerance.is_some() {
            let msg = format!(
                "the tolerance on {at} reaches no numeric scalar: the types it holds have only bools and enums, or numeric fields that write their own"
            );
            let steps = format!(
                "the tolerance on {at} is less than one step, or more than {} steps, of a numeric scalar it reaches",
                crate::limits::MAX_TOLERANCE_STEPS
            );
            out.extend(quote! {
                const _: () = ::core::assert!(#p::reaches(PARTS, #i, #p::Clause::Tolerance), #msg);
                const _: () = ::core::assert!(#p::tolerance_fits(PARTS, #i), #steps);
            });
        }
    }
    out
}
