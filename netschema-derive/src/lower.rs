//! Lowering `syn::DeriveInput` into the netschema IR, and mapping diagnostics back to spans.

use netschema_idl::codegen::{self, Options};
use netschema_idl::ir::{
    Class, Field, FieldType, GridNeeds, Interp, Precision, PredictClause, Predictor, Schema,
    Struct, TimelineClause, TypeKind,
};
use netschema_idl::validate::{RESERVED_NAMES, RESERVED_TYPE_NAMES};
use netschema_idl::{Diagnostic, FileId, Span as IrSpan, Spanned as IrSpanned};

use crate::list::{list_parts, lower_list};
use crate::schedule::ClassAttrs;
use crate::text::{lower_text, text_parts};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Data, DeriveInput, Expr, Fields, Lit, Token, Type, UnOp};

/// Collects errors so that every mistake is reported in one pass.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Option<syn::Error>,
    /// Spans handed to the IR: an IR span's `start` indexes this table.
    spans: Vec<Span>,
}

impl Ctxt {
    pub(crate) fn error(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    fn error_at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    fn push(&mut self, err: syn::Error) {
        match &mut self.errors {
            Some(all) => all.combine(err),
            None => self.errors = Some(err),
        }
    }

    pub(crate) fn span(&mut self, tokens: &impl ToTokens) -> IrSpan {
        let span = tokens.to_token_stream().into_iter().next().map_or(Span::call_site(), |t| {
            // Cover the whole expression where the compiler can join spans.
            let first = t.span();
            let last = tokens.to_token_stream().into_iter().last().map_or(first, |t| t.span());
            first.join(last).unwrap_or(first)
        });
        let index = u32::try_from(self.spans.len()).unwrap_or(u32::MAX - 1);
        self.spans.push(span);
        IrSpan::new(FileId(0), index, index + 1)
    }

    pub(crate) fn spanned<T>(&mut self, value: T, tokens: &impl ToTokens) -> IrSpanned<T> {
        IrSpanned::new(value, self.span(tokens))
    }

    /// Reports a validator diagnostic at its primary span, with its help and notes on the
    /// lines below. The labels are left out: written for a source snippet ("min", "listed again
    /// here"), they add nothing to a message already shown at the labelled tokens.
    fn diagnostic(&mut self, d: &Diagnostic) {
        let span = d
            .primary_span()
            .filter(|s| s.file == FileId(0))
            .and_then(|s| self.spans.get(s.start as usize).copied())
            .unwrap_or(Span::call_site());
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str(&format!("\n= help: {help}"));
        }
        for note in &d.notes {
            message.push_str(&format!("\n= note: {note}"));
        }
        self.error_at(span, message);
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.errors {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }
}

/// The text of the `///` comments (`#[doc = "..."]`) among `attrs`, one line per `\n`.
pub(crate) fn docs(attrs: &[syn::Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) = &nv.value
        {
            let text = s.value();
            lines.push(text.strip_prefix(' ').unwrap_or(&text).trim_end().to_owned());
        }
    }
    lines.join("\n")
}

/// Reads an item attribute of one derive besides `crate = "path"`: whether `meta` was one it
/// reads (and read it).
pub(crate) type ItemAttr<'a> =
    &'a mut dyn FnMut(&mut Ctxt, &ParseNestedMeta<'_>) -> syn::Result<bool>;

/// Reads `#[netschema(crate = "path")]` on the item and what `extra` reads; reports anything
/// else with the message `unknown`.
pub(crate) fn item_options(
    cx: &mut Ctxt,
    attrs: &[syn::Attribute],
    extra: ItemAttr<'_>,
    unknown: &str,
) -> Options {
    let mut path: Option<syn::Path> = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("netschema")) {
        let result = attr.parse_nested_meta(|meta| {
            if extra(cx, &meta)? {
                Ok(())
            } else if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                if path.is_some() {
                    cx.error(&meta.path, "duplicate `crate` attribute");
                }
                match lit.parse::<syn::Path>() {
                    Ok(p) => path = Some(p),
                    Err(_) => cx.error(&lit, "`crate` must be a path, such as `\"::netschema\"`"),
                }
                Ok(())
            } else {
                Err(meta.error(unknown))
            }
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    match path {
        Some(p) => Options::new().crate_path(p),
        None => Options::new(),
    }
}

/// `#[derive(SnapshotEnum)]`.
pub(crate) fn snapshot_enum(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut cx = Ctxt::default();
    let options = item_options(
        &mut cx,
        &input.attrs,
        &mut |_, _| Ok(false),
        "unknown netschema attribute on the enum: expected `crate = \"path\"`",
    );
    if !input.generics.params.is_empty() {
        cx.error(&input.generics, "`SnapshotEnum` cannot be derived for generic enums");
    }
    let mut cases = Vec::new();
    match &input.data {
        Data::Enum(data) => {
            if data.variants.is_empty() {
                cx.error(&input.ident, "an enum needs at least one case to be replicated");
            }
            for v in &data.variants {
                if !matches!(v.fields, Fields::Unit) {
                    cx.error(&v.fields, "`SnapshotEnum` variants cannot have fields");
                }
                for attr in v.attrs.iter().filter(|a| a.path().is_ident("netschema")) {
                    cx.error(attr, "netschema attributes are not supported on enum variants");
                }
                cases.push(v.ident.clone());
            }
            if data.variants.len() > netschema_idl::limits::MAX_ENUM_CASES {
                cx.error(
                    &input.ident,
                    format!(
                        "enum has {} cases, more than the limit of {}",
                        data.variants.len(),
                        netschema_idl::limits::MAX_ENUM_CASES
                    ),
                );
            }
        }
        _ => cx.error(&input.ident, "`SnapshotEnum` can only be derived for enums"),
    }
    cx.finish()?;
    let ident = &input.ident;
    Ok(codegen::enum_impl(&quote!(#ident), &cases, &options))
}

/// `#[derive(Snapshot)]`.
pub(crate) fn snapshot(input: &DeriveInput) -> syn::Result<TokenStream> {
    let Some((schema, options)) = class(input, "Snapshot")? else {
        return Ok(TokenStream::new());
    };
    let ident = &input.ident;
    Ok(codegen::snapshot_impl(&schema, 0, &quote!(#ident), &options))
}

/// Lowers the struct `input`, which derives `derive`, as the one class of a schema, with its
/// options (`#[derive(Snapshot)]`, `#[derive(Event)]`). `None` when it has no named fields
/// (reported).
pub(crate) fn class(input: &DeriveInput, derive: &str) -> syn::Result<Option<(Schema, Options)>> {
    let mut cx = Ctxt::default();
    let mut class_attrs = ClassAttrs::default();
    let mut protocol: Option<syn::Path> = None;
    let mut options = item_options(
        &mut cx,
        &input.attrs,
        &mut |cx, meta| {
            if !meta.path.is_ident("protocol") {
                return class_attrs.read(cx, meta);
            }
            let lit: syn::LitStr = meta.value()?.parse()?;
            match lit.parse::<syn::Path>() {
                Ok(_) if protocol.is_some() => cx.error(&meta.path, "duplicate `protocol`"),
                Ok(p) => protocol = Some(p),
                Err(_) => cx.error(&lit, "`protocol` is the path of the enum deriving `Protocol`"),
            }
            Ok(true)
        },
        ClassAttrs::UNKNOWN,
    );
    let Some(fields) = named_fields(&mut cx, input, derive) else {
        cx.finish()?;
        return Ok(None);
    };
    let class_name = input.ident.unraw().to_string();
    let mut class = Class::new(class_name, [])
        .with_schedule(class_attrs.schedule)
        .with_groups(class_attrs.groups);
    class.docs = docs(&input.attrs);
    class.span = cx.span(&input.ident);
    let mut schema = Schema::new("derive");
    class.fields = lower_fields(&mut cx, &mut schema, &mut options, &class.name, fields);
    let lowered = class.fields.len();
    schema.classes.push(class);
    validate(&mut cx, &schema, lowered, fields.len());
    match protocol {
        Some(p) => options = options.protocol(quote!(#p)),
        None => {
            if let Some(f) = fields.iter().find(|f| ref_target(&f.ty).is_some()) {
                cx.error(&f.ty, "a reference resolves its target in the schema: name the enum deriving `Protocol` with `#[netschema(protocol = \"Game\")]` on the struct");
            }
        }
    }
    cx.finish()?;
    Ok(Some((schema, options)))
}

/// The named fields of the struct `input`, which derives `derive`; `None` after reporting
/// anything else (an enum, a union, a tuple or unit struct, generics).
pub(crate) fn named_fields<'a>(
    cx: &mut Ctxt,
    input: &'a DeriveInput,
    derive: &str,
) -> Option<&'a Punctuated<syn::Field, Token![,]>> {
    if !input.generics.params.is_empty() {
        cx.error(&input.generics, format!("`{derive}` cannot be derived for generic structs"));
    }
    match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => Some(&named.named),
            Fields::Unnamed(f) => {
                cx.error(f, format!("`{derive}` needs a struct with named fields"));
                None
            }
            Fields::Unit => {
                cx.error(&input.ident, format!("`{derive}` needs a struct with named fields"));
                None
            }
        },
        Data::Enum(e) => {
            cx.error(
                e.enum_token,
                format!("`{derive}` can only be derived for structs; derive `SnapshotEnum` for an enum used as a field"),
            );
            None
        }
        Data::Union(u) => {
            cx.error(u.union_token, format!("`{derive}` can only be derived for structs"));
            None
        }
    }
}

/// Lowers the fields of the class or struct called `owner`; a field that does not lower has
/// its errors reported and is left out.
pub(crate) fn lower_fields(
    cx: &mut Ctxt,
    schema: &mut Schema,
    options: &mut Options,
    owner: &str,
    fields: &Punctuated<syn::Field, Token![,]>,
) -> Vec<Field> {
    fields
        .iter()
        .filter_map(|f| {
            let ident = f.ident.as_ref()?;
            lower_field(cx, schema, options, owner, ident, f)
        })
        .collect()
}

/// Validates `schema`, whose item has `lowered` of its `declared` fields left, and reports the
/// diagnostics. A field that did not lower has its errors reported already; the others are
/// still validated, so one bad field hides nothing. With no field left, "no fields" would
/// only be a follow-on error.
pub(crate) fn validate(cx: &mut Ctxt, schema: &Schema, lowered: usize, declared: usize) {
    if (lowered > 0 || declared == 0)
        && let Err(diags) = netschema_idl::validate(schema)
    {
        for d in &diags {
            cx.diagnostic(d);
        }
    }
}

/// What the attributes of one field say.
#[derive(Default)]
struct FieldAttrs {
    kind: Option<Expr>,
    predict: Option<(Vec<IrSpanned<Predictor>>, IrSpan)>,
    tolerance: Option<IrSpanned<f64>>,
    group: Option<IrSpanned<String>>,
    timeline: Option<TimelineClause>,
    /// An item could not be read (already reported): it may have been meant as the kind.
    unreadable: bool,
}

const KINDS: &str = "`int(min, max)`, `fixed(min, max, res = R)`, `fixed(min, max, bits = N)`, `angle(bits = N)`, `quat(bits = N)`, `vec2(K)`, `vec3(K)` or `bool`";

/// The clauses a field attribute may give besides its kind.
const CLAUSES: &str =
    "`predict(...)`, `tolerance = V`, `group = \"name\"` or `timeline(interp, ...)`";

fn field_attrs(cx: &mut Ctxt, attrs: &[syn::Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("netschema")) {
        let items = match attr.parse_args_with(Punctuated::<Expr, Token![,]>::parse_terminated) {
            Ok(items) => items,
            Err(e) => {
                cx.push(e);
                out.unreadable = true;
                continue;
            }
        };
        if items.is_empty() {
            cx.error(
                attr,
                format!("empty netschema attribute: expected a kind ({KINDS}) or {CLAUSES}"),
            );
        }
        for item in items {
            let name = head_name(&item);
            match name.as_deref() {
                Some("predict") => {
                    if out.predict.is_some() {
                        cx.error(&item, "duplicate `predict(...)`");
                        continue;
                    }
                    out.predict = Some(predict(cx, &item));
                }
                Some("tolerance") => {
                    let value =
                        assigned(cx, &item, "tolerance = V").and_then(|v| real_value(cx, v));
                    set_once(cx, &mut out.tolerance, value, &item, "tolerance");
                }
                Some("group") => {
                    let value =
                        assigned(cx, &item, "group = \"name\"").and_then(|v| string_value(cx, v));
                    set_once(cx, &mut out.group, value, &item, "group");
                }
                Some("timeline") => {
                    let value = timeline(cx, &item);
                    set_once(cx, &mut out.timeline, value, &item, "timeline");
                }
                Some("int" | "fixed" | "angle" | "quat" | "vec2" | "vec3" | "bool") => {
                    if let Some(first) = &out.kind {
                        let first = head_name(first).unwrap_or_default();
                        cx.error(
                            &item,
                            format!("a field has one kind, and `{first}` is already given"),
                        );
                        continue;
                    }
                    out.kind = Some(item);
                }
                Some("crate") => {
                    cx.error(&item, "`crate = \"...\"` goes on the struct, not on a field")
                }
                Some("enum") => {
                    cx.error(
                        &item,
                        "enum fields need no attribute: derive `SnapshotEnum` on the enum type",
                    );
                    out.unreadable = true;
                }
                _ => {
                    let what = name.map_or(String::new(), |n| format!(" `{n}`"));
                    cx.error(
                        &item,
                        format!(
                            "unknown netschema attribute{what}: expected a kind ({KINDS}) or {CLAUSES}"
                        ),
                    );
                    out.unreadable = true;
                }
            }
        }
    }
    out
}

/// The value of `name = value`, or `None` after reporting that `usage` was expected.
fn assigned<'e>(cx: &mut Ctxt, item: &'e Expr, usage: &str) -> Option<&'e Expr> {
    match item {
        Expr::Assign(a) => Some(&a.right),
        _ => {
            cx.error(item, format!("expected `{usage}`"));
            None
        }
    }
}

/// Stores `value` in `slot`, or reports `item` as a second `name`.
fn set_once<T>(cx: &mut Ctxt, slot: &mut Option<T>, value: Option<T>, item: &Expr, name: &str) {
    if slot.is_some() {
        cx.error(item, format!("duplicate `{name}`"));
    } else {
        *slot = value;
    }
}

/// A string literal's value.
fn string_value(cx: &mut Ctxt, e: &Expr) -> Option<IrSpanned<String>> {
    match e {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(cx.spanned(s.value(), s)),
        _ => {
            cx.error(e, "expected a group name in quotes: `group = \"slow\"`");
            None
        }
    }
}

/// The name at the head of `int(..)`, `bool` or `crate = ..`.
fn head_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Call(c) => head_name(&c.func),
        Expr::Path(p) => {
            p.path.get_ident().map(|i| i.unraw().to_string()).or_else(|| {
                (p.path.segments.len() == 1).then(|| p.path.segments[0].ident.to_string())
            })
        }
        Expr::Assign(a) => head_name(&a.left),
        _ => None,
    }
}

fn predict(cx: &mut Ctxt, item: &Expr) -> (Vec<IrSpanned<Predictor>>, IrSpan) {
    let span = cx.span(item);
    let mut list = Vec::new();
    let Expr::Call(call) = item else {
        cx.error(item, "expected a list of predictors: `predict(hold, linear)`");
        return (list, span);
    };
    for arg in &call.args {
        let name = match arg {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        match name.as_deref().and_then(Predictor::from_name) {
            Some(p) => list.push(cx.spanned(p, arg)),
            None => cx.error(
                arg,
                "unknown predictor: expected one of `zero`, `hold`, `linear`, `quadratic`, `cubic`",
            ),
        }
    }
    (list, span)
}

/// The shape of a field's Rust type.
enum Shape<'a> {
    /// `[elem; len]`.
    Array { elem: &'a Type, len: Option<u32>, ty: &'a Type },
    /// Anything else.
    Leaf(&'a Type),
}

fn shape(ty: &Type) -> Shape<'_> {
    match ty {
        Type::Array(a) => {
            let len = match &a.len {
                Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. }) => n.base10_parse::<u32>().ok(),
                _ => None,
            };
            Shape::Array { elem: &a.elem, len, ty }
        }
        Type::Group(g) => shape(&g.elem),
        Type::Paren(p) => shape(&p.elem),
        Type::Path(p) if p.qself.is_none() => match glam_vector(p) {
            Some((elem, len)) => Shape::Array { elem, len: Some(len), ty },
            None => Shape::Leaf(ty),
        },
        _ => Shape::Leaf(ty),
    }
}

/// Glam's vectors and quaternions (by their type names, with or without a path), as arrays of
/// their components: `Vec3` is `[f32; 3]`, `DQuat` is `[f64; 4]`. The facade converts them
/// with its `glam` feature.
fn glam_vector(p: &syn::TypePath) -> Option<(&'static Type, u32)> {
    thread_local! {
        // Built once per thread and kept for the compiler's run, like the tokens they stand for.
        static ELEMS: (&'static Type, &'static Type) =
            (Box::leak(Box::new(syn::parse_quote!(f32))), Box::leak(Box::new(syn::parse_quote!(f64))));
    }
    let last = p.path.segments.last()?;
    if !last.arguments.is_none() {
        return None;
    }
    let (double, len) = match last.ident.to_string().as_str() {
        "Vec2" => (false, 2),
        "Vec3" => (false, 3),
        "Quat" => (false, 4),
        "DVec2" => (true, 2),
        "DVec3" => (true, 3),
        "DQuat" => (true, 4),
        _ => return None,
    };
    let (f32, f64) = ELEMS.with(|e| *e);
    Some((if double { f64 } else { f32 }, len))
}

/// How many array levels a kind's natural type has: `vec2`, `vec3` and `quat` are arrays.
fn kind_depth(kind: &Expr) -> usize {
    match head_name(kind).as_deref() {
        Some("vec2" | "vec3" | "quat") => 1,
        _ => 0,
    }
}

fn type_depth(ty: &Type) -> usize {
    match shape(ty) {
        Shape::Array { elem, .. } => 1 + type_depth(elem),
        Shape::Leaf(_) => 0,
    }
}

fn array_len(cx: &mut Ctxt, ty: &Type, len: Option<u32>) -> IrSpanned<u32> {
    let Type::Array(a) = ty else { return 0.into() };
    match len {
        Some(n) => cx.spanned(n, &a.len),
        None => {
            cx.error(&a.len, "array length must be an integer literal");
            cx.spanned(1, &a.len)
        }
    }
}

fn lower_field(
    cx: &mut Ctxt,
    schema: &mut Schema,
    options: &mut Options,
    class: &str,
    ident: &syn::Ident,
    f: &syn::Field,
) -> Option<Field> {
    let attrs = field_attrs(cx, &f.attrs);
    let ty = lower_type(cx, schema, options, class, ident, &attrs, &f.ty)?;
    let predict = attrs.predict.map(|(predictors, span)| PredictClause { predictors, span });
    Some(Field {
        name: ident.unraw().to_string(),
        docs: docs(&f.attrs),
        ty,
        predict,
        tolerance: attrs.tolerance,
        group: attrs.group,
        timeline: attrs.timeline,
        span: cx.span(ident),
    })
}

/// The `T` of `Option<T>` (by the type's name, with or without a path).
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "Option" && p.qself.is_none())?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [syn::GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// The `T` of `Ref<T>` (by the type's name, with or without a path): a reference field.
fn ref_target(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "Ref" && p.qself.is_none())?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [syn::GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// `ref<T>` for a field of type `Ref<T>` (`target`), `T` named as an external type that the
/// compiler resolves through `Target<protocol>`.
fn lower_ref(
    cx: &mut Ctxt,
    schema: &mut Schema,
    options: &mut Options,
    class: &str,
    ty: &Type,
    target: &Type,
) -> FieldType {
    let name = match target {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.unraw().to_string()),
        _ => None,
    };
    let name = external(schema, options, class, target, &name.unwrap_or_default());
    FieldType { kind: TypeKind::Ref { target: Some(name) }, span: cx.span(ty) }
}

/// Lowers a field's Rust type `ty` with its attributes: `Option<T>` is `optional<K>` of what
/// `T` lowers to, `List<T, N>` `list<K, N>`, `Ref<T>` a reference.
fn lower_type(
    cx: &mut Ctxt,
    schema: &mut Schema,
    options: &mut Options,
    class: &str,
    ident: &syn::Ident,
    attrs: &FieldAttrs,
    f_ty: &Type,
) -> Option<FieldType> {
    if attrs.timeline.is_none()
        && let Some(inner) = option_inner(f_ty)
    {
        let span = cx.span(f_ty);
        let inner = lower_type(cx, schema, options, class, ident, attrs, inner)?;
        return Some(FieldType { kind: TypeKind::Optional(Box::new(inner)), span });
    }
    if attrs.timeline.is_none()
        && let Some((elem, bound)) = list_parts(f_ty)
    {
        let elem = lower_type(cx, schema, options, class, ident, attrs, elem)?;
        return Some(lower_list(cx, f_ty, elem, bound));
    }
    if let Some((bound, utf8)) = text_parts(f_ty) {
        if let Some(kind) = &attrs.kind {
            cx.error(kind, "a string or blob takes no kind: its bound is its type, `Text<32>`");
            return None;
        }
        return Some(lower_text(cx, f_ty, bound, utf8));
    }
    if let Some(target) = ref_target(f_ty) {
        if let Some(kind) = &attrs.kind {
            cx.error(
                kind,
                "a reference takes no kind: its target's class is its type, `Ref<Ship>`",
            );
            return None;
        }
        return Some(lower_ref(cx, schema, options, class, f_ty, target));
    }
    let ty = match &attrs.kind {
        // A timeline's Rust type is `Timeline<W, N>`: the kind is checked against its natural
        // type instead (and `W`, `N` by the compiler, against the generated timeline).
        Some(kind) if attrs.timeline.is_some() => lower_kind(cx, kind, &natural_type(kind))?,
        None if attrs.timeline.is_some() => {
            cx.error(f_ty, format!("a timeline field needs its kind: {KINDS}"));
            return None;
        }
        Some(kind) => {
            let want = kind_depth(kind);
            let have = type_depth(f_ty);
            if have == want {
                lower_kind(cx, kind, f_ty)?
            } else if have == want + 1 {
                let Shape::Array { elem, len, ty } = shape(f_ty) else { return None };
                let len = array_len(cx, ty, len);
                let elem = lower_kind(cx, kind, elem)?;
                FieldType {
                    kind: TypeKind::Array { elem: Box::new(elem), len },
                    span: cx.span(f_ty),
                }
            } else {
                let name = head_name(kind).unwrap_or_default();
                let expected = match want {
                    0 => format!("a scalar or an array of scalars for `{name}`"),
                    _ => format!("an array `[T; N]` (or an array of them) for `{name}`"),
                };
                cx.error(f_ty, format!("type does not fit the kind: expected {expected}"));
                return None;
            }
        }
        // The attribute's error is reported; "needs a kind" would only repeat it.
        None if attrs.unreadable => return None,
        None => lower_by_type(cx, schema, options, class, ident, f_ty)?,
    };
    Some(ty)
}

/// A field without a kind attribute: `bool`, a struct or enum type, or arrays and options of
/// them. `class` is the
/// name of the class being lowered.
fn lower_by_type(
    cx: &mut Ctxt,
    schema: &mut Schema,
    options: &mut Options,
    class: &str,
    ident: &syn::Ident,
    ty: &Type,
) -> Option<FieldType> {
    match shape(ty) {
        Shape::Array { elem, len, ty: arr } => {
            let len = array_len(cx, arr, len);
            let elem = lower_by_type(cx, schema, options, class, ident, elem)?;
            Some(FieldType {
                kind: TypeKind::Array { elem: Box::new(elem), len },
                span: cx.span(arr),
            })
        }
        Shape::Leaf(leaf) if ref_target(leaf).is_some() => {
            let target = ref_target(leaf)?;
            Some(lower_ref(cx, schema, options, class, leaf, target))
        }
        Shape::Leaf(leaf) if text_parts(leaf).is_some() => {
            let (bound, utf8) = text_parts(leaf)?;
            Some(lower_text(cx, leaf, bound, utf8))
        }
        Shape::Leaf(leaf) if option_inner(leaf).is_some() => {
            let span = cx.span(leaf);
            let inner = option_inner(leaf)?;
            let inner = lower_by_type(cx, schema, options, class, ident, inner)?;
            Some(FieldType { kind: TypeKind::Optional(Box::new(inner)), span })
        }
        Shape::Leaf(leaf) if list_parts(leaf).is_some() => {
            let (elem, bound) = list_parts(leaf)?;
            let elem = lower_by_type(cx, schema, options, class, ident, elem)?;
            Some(lower_list(cx, leaf, elem, bound))
        }
        Shape::Leaf(leaf) => {
            let span = cx.span(leaf);
            let Type::Path(p) = leaf else {
                cx.error(leaf, format!("unsupported field type: a replicated field is a bool, a struct deriving `SnapshotStruct`, an enum deriving `SnapshotEnum`, a number with a kind attribute ({KINDS}), or an array or `Option` of those"));
                return None;
            };
            if p.qself.is_none() && p.path.is_ident("bool") {
                return Some(FieldType { kind: TypeKind::Bool, span });
            }
            let last = p.path.segments.last()?;
            let name = last.ident.unraw().to_string();
            if p.qself.is_none() && p.path.segments.len() == 1 && primitive(&name).is_some() {
                let hint = match primitive(&name) {
                    Some(Prim::Int) => "`#[netschema(int(min, max))]`",
                    _ => {
                        "`#[netschema(fixed(min, max, res = R))]` or `#[netschema(angle(bits = N))]`"
                    }
                };
                cx.error(
                    leaf,
                    format!("field `{}` of type `{name}` needs a kind: add {hint}", ident.unraw()),
                );
                return None;
            }
            if !last.arguments.is_none() {
                cx.error(leaf, "unsupported field type: generic types cannot be replicated; a field's type must derive `SnapshotStruct` or `SnapshotEnum`");
                return None;
            }
            Some(FieldType {
                kind: TypeKind::Struct { name: external(schema, options, class, leaf, &name) },
                span,
            })
        }
    }
}

/// The IR name of the external struct standing for `ty` (named `name` in Rust), declared on
/// first use: a struct deriving `SnapshotStruct` or an enum deriving `SnapshotEnum`, whose
/// scalars only the compiler knows, so the code reads `<T as SnapshotStruct>::SCALARS`. The IR
/// name only keys the type in `options`, so it is one the IR accepts whatever the Rust name:
/// an ASCII identifier, not reserved, not the class's or struct's (`owner`).
fn external(
    schema: &mut Schema,
    options: &mut Options,
    owner: &str,
    ty: &Type,
    name: &str,
) -> String {
    let tokens = ty.to_token_stream().to_string();
    let base = if name.is_ascii() { name.to_owned() } else { "Type".to_owned() };
    let mut ir_name = base.clone();
    let mut n = 2;
    loop {
        match options.item_type_of(&ir_name) {
            Some(existing) if existing.to_string() == tokens => break,
            None if ir_name != owner && !reserved(&ir_name) => break,
            _ => {}
        }
        ir_name = format!("{base}_{n}");
        n += 1;
    }
    if schema.find_struct(&ir_name).is_none() {
        schema.structs.push(Struct::external(ir_name.clone()));
        *options = std::mem::take(options).item_type(ir_name.clone(), ty.to_token_stream());
    }
    ir_name
}

/// Whether the IR reserves `name` for something other than an item.
fn reserved(name: &str) -> bool {
    RESERVED_NAMES.contains(&name) || RESERVED_TYPE_NAMES.contains(&name)
}

#[derive(Clone, Copy, PartialEq)]
enum Prim {
    Int,
    Real,
}

fn primitive(name: &str) -> Option<Prim> {
    match name {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => Some(Prim::Int),
        "f32" | "f64" => Some(Prim::Real),
        _ => None,
    }
}

/// Checks that a leaf Rust type suits a kind, where it is a primitive that obviously does not.
fn check_leaf(cx: &mut Ctxt, kind: &str, ty: &Type) {
    let name = match ty {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    let Some(name) = name else { return };
    let (prim, is_bool) = (primitive(&name), name == "bool");
    let bad = match kind {
        "int" => prim == Some(Prim::Real) || is_bool,
        "fixed" | "angle" | "quat" => prim == Some(Prim::Int) || is_bool,
        "bool" => prim.is_some(),
        _ => false,
    };
    if bad {
        let want = match kind {
            "int" => "an integer type",
            "bool" => "`bool`",
            _ => "`f32` or `f64`",
        };
        cx.error(ty, format!("`{kind}` needs {want}, not `{name}`"));
    }
}

/// The values of a primitive Rust integer type, as `(min, max)`.
fn int_type_range(name: &str) -> Option<(i128, i128)> {
    Some(match name {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        "i128" | "u128" => (i128::MIN, i128::MAX),
        _ => return None,
    })
}

/// Reports an `int(min, max)` whose range does not fit the field's Rust integer type (e.g.
/// `int(0, 1000)` on a `u8`, which could never hold 1000), at the kind's span.
fn check_int_fits(cx: &mut Ctxt, kind: &Expr, ty: &Type, min: i64, max: i64) {
    let name = match ty {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    let Some((lo, hi)) = name.as_deref().and_then(int_type_range) else { return };
    if i128::from(min) < lo || i128::from(max) > hi {
        let name = name.unwrap_or_default();
        cx.error(
            kind,
            format!(
                "`int({min}, {max})` does not fit `{name}`, whose values are {lo}..={hi}: narrow the range or widen the type"
            ),
        );
    }
}

/// Lowers a kind expression against the Rust type it describes (already depth-matched; an
/// `Option<T>` is the optional of the kind on `T`).
fn lower_kind(cx: &mut Ctxt, kind: &Expr, ty: &Type) -> Option<FieldType> {
    if let Some(inner) = option_inner(ty) {
        let span = cx.span(ty);
        let inner = lower_kind(cx, kind, inner)?;
        return Some(FieldType { kind: TypeKind::Optional(Box::new(inner)), span });
    }
    if let Some((elem, bound)) = list_parts(ty) {
        let elem = lower_kind(cx, kind, elem)?;
        return Some(lower_list(cx, ty, elem, bound));
    }
    let span = cx.span(kind);
    let Some(name) = head_name(kind) else {
        cx.error(kind, format!("expected a kind: {KINDS}"));
        return None;
    };
    let args: Vec<&Expr> = match kind {
        Expr::Call(c) => c.args.iter().collect(),
        _ => Vec::new(),
    };
    if name != "bool" && !matches!(kind, Expr::Call(_)) {
        cx.error(kind, format!("`{name}` needs parameters: expected {KINDS}"));
        return None;
    }
    let (positional, named) = split_args(cx, &args);
    let ty_kind = match name.as_str() {
        "bool" => {
            check_leaf(cx, "bool", ty);
            if matches!(kind, Expr::Call(_)) {
                cx.error(kind, "`bool` takes no parameters");
            }
            TypeKind::Bool
        }
        "int" => {
            check_leaf(cx, "int", ty);
            no_named(cx, &named, "int");
            let [min_expr, max_expr] = bounds(cx, kind, &positional, "int(min, max)")?;
            const NOT_INTEGER: &str = "`int` bounds must be integers";
            let (min, max) =
                (int_value(cx, min_expr, NOT_INTEGER), int_value(cx, max_expr, NOT_INTEGER));
            let (min, max) = (min?, max?);
            check_int_fits(cx, kind, ty, min.value, max.value);
            TypeKind::Int { min, max }
        }
        "fixed" => {
            check_leaf(cx, "fixed", ty);
            let [min, max] = bounds(cx, kind, &positional, "fixed(min, max, res = R)")?;
            let (min, max) = (real_value(cx, min), real_value(cx, max));
            let mut precision = None;
            let mut needs = GridNeeds::default();
            for (key, value) in &named {
                let p = match key.to_string().as_str() {
                    "res" => real_value(cx, value)
                        .map(|v| cx.spanned(Precision::Resolution(v.value), *value)),
                    "bits" => {
                        bits_value(cx, value).map(|v| cx.spanned(Precision::Bits(v.value), *value))
                    }
                    "exact" | "max_step" => {
                        grid_need(cx, key, value, &mut needs);
                        continue;
                    }
                    other => {
                        cx.error(
                            key,
                            format!(
                                "unknown parameter `{other}` of `fixed`: expected `res`, `bits`, `exact` or `max_step`"
                            ),
                        );
                        continue;
                    }
                };
                if precision.is_some() {
                    cx.error(key, "`fixed` takes one of `res = R` or `bits = N`, not both");
                    continue;
                }
                precision = Some(p);
            }
            let Some(precision) = precision else {
                cx.error(kind, "`fixed` needs a precision: `res = R` (the step) or `bits = N`");
                return None;
            };
            TypeKind::Fixed { min: min?, max: max?, precision: precision?, needs }
        }
        "angle" | "quat" => {
            check_leaf(cx, &name, leaf_of(ty));
            if let Some(extra) = positional.first() {
                cx.error(extra, format!("`{name}` takes only `bits = N`"));
            }
            let mut bits = None;
            let mut needs = GridNeeds::default();
            for (key, value) in &named {
                if key == "exact" || key == "max_step" {
                    grid_need(cx, key, value, &mut needs);
                } else if key != "bits" {
                    cx.error(
                        key,
                        format!("unknown parameter `{key}` of `{name}`: expected `bits`, `exact` or `max_step`"),
                    );
                } else if bits.is_some() {
                    cx.error(key, "duplicate `bits`");
                } else {
                    bits = Some(bits_value(cx, value));
                }
            }
            let Some(bits) = bits else {
                cx.error(kind, format!("`{name}` needs `bits = N`"));
                return None;
            };
            let bits = bits?;
            if name == "angle" {
                TypeKind::Angle { bits, needs }
            } else {
                TypeKind::Quat { bits, needs }
            }
        }
        "vec2" | "vec3" => {
            let n = if name == "vec2" { 2 } else { 3 };
            let Shape::Array { elem, len, ty: arr } = shape(ty) else { return None };
            if len != Some(n) {
                let Type::Array(a) = arr else { return None };
                cx.error(&a.len, format!("`{name}` needs an array of length {n}"));
            }
            if !named.is_empty() || positional.len() != 1 {
                cx.error(
                    kind,
                    format!(
                        "`{name}` takes one component kind: `{name}(fixed(-1.0, 1.0, res = 0.01))`"
                    ),
                );
                return None;
            }
            let inner = positional[0];
            if kind_depth(inner) != 0 {
                cx.error(inner, "nested vectors are not supported: a vector's components must be int, fixed or angle");
                return None;
            }
            let elem = lower_kind(cx, inner, elem)?;
            if name == "vec2" {
                TypeKind::Vec2(Box::new(elem))
            } else {
                TypeKind::Vec3(Box::new(elem))
            }
        }
        _ => {
            cx.error(kind, format!("unknown kind `{name}`: expected {KINDS}"));
            return None;
        }
    };
    if name == "quat" {
        let Shape::Array { len, ty: arr, .. } = shape(ty) else { return None };
        if len != Some(4) {
            let Type::Array(a) = arr else { return None };
            cx.error(&a.len, "`quat` needs `[f32; 4]` (or `[f64; 4]`), as `[x, y, z, w]`");
        }
    }
    Some(FieldType { kind: ty_kind, span })
}

/// The innermost element type of an array type.
fn leaf_of(ty: &Type) -> &Type {
    match shape(ty) {
        Shape::Array { elem, .. } => leaf_of(elem),
        Shape::Leaf(t) => t,
    }
}

/// The Rust type a field of `kind` would have: what a timeline's kind is checked against.
fn natural_type(kind: &Expr) -> Type {
    match head_name(kind).as_deref() {
        Some("vec2") => syn::parse_quote!([f64; 2]),
        Some("vec3") => syn::parse_quote!([f64; 3]),
        Some("quat") => syn::parse_quote!([f64; 4]),
        Some("int") => syn::parse_quote!(i32),
        Some("bool") => syn::parse_quote!(bool),
        _ => syn::parse_quote!(f64),
    }
}

/// Reads `timeline(interp, ahead = A, history = H, keep = K)`; ranges are checked by
/// validation.
fn timeline(cx: &mut Ctxt, item: &Expr) -> Option<TimelineClause> {
    const USAGE: &str =
        "expected `timeline(step | linear | cubic, ahead = A, history = H, keep = K)`";
    let Expr::Call(call) = item else {
        cx.error(item, USAGE);
        return None;
    };
    let args: Vec<&Expr> = call.args.iter().collect();
    let (positional, named) = split_args(cx, &args);
    let [interp] = positional[..] else {
        cx.error(item, USAGE);
        return None;
    };
    let value = match head_name(interp).as_deref() {
        Some("step") => Interp::Step,
        Some("linear") => Interp::Linear,
        Some("cubic") => Interp::Cubic,
        _ => {
            cx.error(interp, "unknown interpolation: expected `step`, `linear` or `cubic`");
            return None;
        }
    };
    let mut clause = TimelineClause::new(value);
    clause.interp = cx.spanned(value, interp);
    clause.span = cx.span(item);
    for (key, e) in named {
        let slot = match key.to_string().as_str() {
            "ahead" => &mut clause.ahead,
            "history" => &mut clause.history,
            "keep" => &mut clause.keep,
            _ => {
                cx.error(&key, "a timeline takes `ahead = A`, `history = H` and `keep = K`");
                continue;
            }
        };
        let v = int_value(cx, e, "a timeline's limits are integers");
        set_once(cx, slot, v, e, &key.to_string());
    }
    Some(clause)
}

fn split_args<'a>(
    cx: &mut Ctxt,
    args: &[&'a Expr],
) -> (Vec<&'a Expr>, Vec<(syn::Ident, &'a Expr)>) {
    let mut positional = Vec::new();
    let mut named = Vec::new();
    for &arg in args {
        match arg {
            Expr::Assign(a) => match &*a.left {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    if let Some(key) = p.path.get_ident() {
                        named.push((key.clone(), &*a.right));
                    }
                }
                other => cx.error(other, "expected a parameter name"),
            },
            _ => positional.push(arg),
        }
    }
    (positional, named)
}

fn no_named(cx: &mut Ctxt, named: &[(syn::Ident, &Expr)], kind: &str) {
    for (key, _) in named {
        cx.error(key, format!("`{kind}` takes no named parameters"));
    }
}

fn bounds<'a>(
    cx: &mut Ctxt,
    kind: &Expr,
    positional: &[&'a Expr],
    usage: &str,
) -> Option<[&'a Expr; 2]> {
    match positional {
        [min, max] => Some([min, max]),
        [_, _, extra, ..] => {
            cx.error(extra, format!("too many bounds: expected `{usage}`"));
            None
        }
        _ => {
            cx.error(kind, format!("expected two bounds: `{usage}`"));
            None
        }
    }
}

/// A number as written: a literal, optionally negated, or a ratio of two.
fn number(e: &Expr) -> Option<Num> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => {
                Some(Num { int: i.base10_parse::<i64>().ok(), real: i.base10_parse::<f64>().ok()? })
            }
            Lit::Float(f) => Some(Num { int: None, real: f.base10_parse::<f64>().ok()? }),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => {
            let n = number(&u.expr)?;
            Some(Num { int: n.int.map(|i| -i), real: -n.real })
        }
        Expr::Paren(p) => number(&p.expr),
        Expr::Group(g) => number(&g.expr),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Div(_)) => {
            let (a, d) = (number(&b.left)?, number(&b.right)?);
            Some(Num { int: None, real: a.real / d.real })
        }
        _ => None,
    }
}

struct Num {
    /// The value, if it is an integer literal (optionally negated).
    int: Option<i64>,
    /// The value in `f64` (a ratio is divided in `f64`, as in `.netidl`).
    real: f64,
}

/// An integer literal, optionally negated; `not_integer` is the error for another number.
pub(crate) fn int_value(cx: &mut Ctxt, e: &Expr, not_integer: &str) -> Option<IrSpanned<i64>> {
    match number(e) {
        Some(Num { int: Some(i), .. }) => Some(cx.spanned(i, e)),
        Some(_) => {
            cx.error(e, not_integer);
            None
        }
        None => {
            cx.error(e, "expected an integer literal");
            None
        }
    }
}

/// Reads `exact = [v, ...]` or `max_step = R` into `needs`.
fn grid_need(cx: &mut Ctxt, key: &syn::Ident, value: &Expr, needs: &mut GridNeeds) {
    if key == "max_step" {
        needs.max_step = real_value(cx, value);
        return;
    }
    let Expr::Array(list) = value else {
        cx.error(value, "`exact` takes a list of values: `exact = [0.0]`, or `exact = []`");
        return;
    };
    needs.exact = Some(list.elems.iter().filter_map(|e| real_value(cx, e)).collect());
}

fn real_value(cx: &mut Ctxt, e: &Expr) -> Option<IrSpanned<f64>> {
    match number(e) {
        Some(n) => Some(cx.spanned(n.real, e)),
        None => {
            cx.error(
                e,
                "expected a number: a literal, optionally negated, or a ratio such as `1 / 512`",
            );
            None
        }
    }
}

fn bits_value(cx: &mut Ctxt, e: &Expr) -> Option<IrSpanned<u32>> {
    let value = match e {
        Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<u32>().ok(),
        _ => None,
    };
    match value {
        Some(v) => Some(cx.spanned(v, e)),
        None => {
            cx.error(e, "`bits` must be a non-negative integer literal");
            None
        }
    }
}
