//! Checking the parameters of a named kind (`int(..)`, `fixed(..)`, `vec2<..>`, …) and
//! building its IR.

use super::{Arg, ArgValue, Num};
use crate::diagnostic::Diagnostic;
use crate::hints;
use crate::ir::{ANY, FieldType, GridNeeds, Precision, TypeKind};
use crate::span::{Span, Spanned};

/// A named argument: its name, the name's span and its value.
type Named<'x> = (&'x str, Span, &'x ArgValue);

/// The parameters that state what a real kind's grid should satisfy ([`GridNeeds`]).
const NEEDS: [&str; 2] = ["exact", "max_step"];

pub(super) fn saturate_u32(v: i128) -> u32 {
    u32::try_from(v.max(0)).unwrap_or(u32::MAX)
}

pub(super) fn saturate_i64(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// Checks the parameters of a named kind and builds it, reporting every problem found.
pub(super) struct KindBuilder<'a, 'd> {
    name: &'a str,
    name_span: Span,
    span: Span,
    diags: &'d mut Vec<Diagnostic>,
    ok: bool,
    /// The number after the component kind (`list<K, N>`'s `N`), if written.
    bound: Option<Num>,
}

impl<'a, 'd> KindBuilder<'a, 'd> {
    /// A builder for the kind called `name` (at `name_span`) spelled over `span`.
    pub(super) fn new(
        name: &'a str,
        name_span: Span,
        span: Span,
        diags: &'d mut Vec<Diagnostic>,
    ) -> Self {
        KindBuilder { name, name_span, span, diags, ok: true, bound: None }
    }

    /// The builder given the number written after the component kind (`list<K, N>`).
    pub(super) fn with_bound(mut self, bound: Option<Num>) -> Self {
        self.bound = bound;
        self
    }

    fn error(&mut self, diag: Diagnostic) {
        self.ok = false;
        self.diags.push(diag);
    }

    pub(super) fn build(
        mut self,
        generic: Option<FieldType>,
        args: Option<Vec<Arg>>,
    ) -> Option<TypeKind> {
        let name = self.name;
        // An unknown kind is reported as such below.
        let bounded = ["list", "string", "bytes"];
        if let Some(bound) =
            self.bound.filter(|_| !bounded.contains(&name) && hints::KIND_NAMES.contains(&name))
        {
            self.error(
                Diagnostic::error(format!("`{name}` takes one kind between `<` and `>`"))
                    .with_label(bound.span, "unexpected bound")
                    .with_help("only lists, strings and blobs have a bound: `list<K, N>`, `string<N>`, `bytes<N>`"),
            );
        }
        let kind = match name {
            "int" | "fixed" | "angle" | "quat" | "bool" => {
                if let Some(g) = &generic {
                    self.error(
                        Diagnostic::error(format!("`{name}` takes no component kind"))
                            .with_label(g.span, "unexpected `<...>`"),
                    );
                }
                match name {
                    "int" => self.int(args),
                    "fixed" => self.fixed(args),
                    "angle" | "quat" => self.bits_kind(args),
                    _ => {
                        if args.is_some() {
                            self.error(
                                Diagnostic::error("`bool` takes no parameters")
                                    .with_label(self.span, "write just `bool`"),
                            );
                        }
                        Some(TypeKind::Bool)
                    }
                }
            }
            "vec2" | "vec3" => {
                if args.is_some() {
                    self.error(
                        Diagnostic::error(format!("`{name}` takes no parameters"))
                            .with_label(self.span, "unexpected parameters")
                            .with_help(format!(
                                "put the parameters on the component kind: `{name}<fixed(-1, 1, bits = 12)>`"
                            )),
                    );
                }
                match generic {
                    Some(elem) if name == "vec2" => Some(TypeKind::Vec2(Box::new(elem))),
                    Some(elem) => Some(TypeKind::Vec3(Box::new(elem))),
                    None => {
                        self.error(
                            Diagnostic::error(format!("`{name}` needs a component kind"))
                                .with_label(self.name_span, "missing `<kind>`")
                                .with_help(format!("e.g. `{name}<fixed(-1, 1, bits = 12)>`")),
                        );
                        None
                    }
                }
            }
            "optional" => {
                if args.is_some() {
                    self.error(
                        Diagnostic::error("`optional` takes no parameters")
                            .with_label(self.span, "unexpected parameters")
                            .with_help(
                                "put the parameters on the value's kind: `optional<int(0, 9)>`",
                            ),
                    );
                }
                match generic {
                    Some(inner) => Some(TypeKind::Optional(Box::new(inner))),
                    None => {
                        self.error(
                            Diagnostic::error("`optional` needs the value's kind")
                                .with_label(self.name_span, "missing `<kind>`")
                                .with_help("e.g. `optional<int(0, 9)>`"),
                        );
                        None
                    }
                }
            }
            "ref" => self.reference(generic, args),
            "list" => self.list(generic, args),
            "string" | "bytes" => self.text(generic, args),
            _ if generic.is_some() || args.is_some() => {
                let help = match hints::similar(name, hints::KIND_NAMES) {
                    Some(kind) => hints::did_you_mean(kind),
                    None => hints::kind_hint(name),
                };
                self.error(
                    Diagnostic::error(format!("unknown kind `{name}`"))
                        .with_label(self.name_span, "not a field kind")
                        .with_help(help),
                );
                None
            }
            _ => Some(TypeKind::Enum { name: name.to_owned() }),
        };
        if self.ok { kind } else { None }
    }

    /// `ref<Class>` or `ref<any>`: a bare name between the brackets, no parameters.
    fn reference(
        &mut self,
        generic: Option<FieldType>,
        args: Option<Vec<Arg>>,
    ) -> Option<TypeKind> {
        if args.is_some() {
            self.error(
                Diagnostic::error("`ref` takes no parameters")
                    .with_label(self.span, "unexpected parameters")
                    .with_help("name the target's class: `ref<Ship>`, or `ref<any>`"),
            );
        }
        match generic.map(|g| (g.kind, g.span)) {
            Some((TypeKind::Enum { name }, _)) => {
                Some(TypeKind::Ref { target: (name != ANY).then_some(name) })
            }
            Some((_, span)) => {
                self.error(
                    Diagnostic::error("`ref` takes the name of a class")
                        .with_label(span, "not a class name")
                        .with_help(
                            "name the target's class: `ref<Ship>`, or `ref<any>` for any class",
                        ),
                );
                None
            }
            None => {
                self.error(
                    Diagnostic::error("`ref` needs the target's class")
                        .with_label(self.name_span, "missing `<Class>`")
                        .with_help("e.g. `ref<Ship>`, or `ref<any>` for any class"),
                );
                None
            }
        }
    }

    /// `list<K, N>`: a component kind and a whole bound between the brackets, no parameters.
    fn list(&mut self, generic: Option<FieldType>, args: Option<Vec<Arg>>) -> Option<TypeKind> {
        const HELP: &str =
            "write `list<K, N>` for at most N elements of K, e.g. `list<int(0, 9), 8>`";
        if args.is_some() {
            self.error(
                Diagnostic::error("`list` takes no parameters")
                    .with_label(self.span, "unexpected parameters")
                    .with_help(HELP),
            );
        }
        let Some((elem, bound)) = generic.zip(self.bound) else {
            self.error(
                Diagnostic::error("`list` needs an element kind and a bound")
                    .with_label(self.name_span, "missing `<K, N>`")
                    .with_help(HELP),
            );
            return None;
        };
        let Some(len) = bound.int else {
            self.error(
                Diagnostic::error("a list's bound must be an integer")
                    .with_label(bound.span, "not an integer")
                    .with_help(HELP),
            );
            return None;
        };
        let len = Spanned::new(saturate_u32(len), bound.span);
        Some(TypeKind::List { elem: Box::new(elem), len })
    }

    /// `string<N>` or `bytes<N>`: a whole bound between the brackets, no kind, no parameters.
    fn text(&mut self, generic: Option<FieldType>, args: Option<Vec<Arg>>) -> Option<TypeKind> {
        let name = self.name;
        let help = format!("write `{name}<N>` for at most N bytes, e.g. `{name}<32>`");
        if args.is_some() {
            self.error(
                Diagnostic::error(format!("`{name}` takes no parameters"))
                    .with_label(self.span, "unexpected parameters")
                    .with_help(help),
            );
            return None;
        }
        if let Some(g) = &generic {
            self.error(
                Diagnostic::error(format!("`{name}` takes a bound, not a kind"))
                    .with_label(g.span, "a kind")
                    .with_help(help.clone()),
            );
            return None;
        }
        let Some(bound) = self.bound else {
            self.error(
                Diagnostic::error(format!("`{name}` needs a bound"))
                    .with_label(self.name_span, "missing `<N>`")
                    .with_help(help),
            );
            return None;
        };
        let Some(max) = bound.int.filter(|&n| n >= 0) else {
            self.error(
                Diagnostic::error(format!("the bound of `{name}` must be a whole number of bytes"))
                    .with_label(bound.span, "not a whole number")
                    .with_help(help),
            );
            return None;
        };
        let max = Spanned::new(saturate_u32(max), bound.span);
        Some(TypeKind::Text { max, utf8: name == "string" })
    }

    /// Splits arguments into positional numbers and named values, reporting duplicates, names
    /// not in `allowed` and lists given as positional arguments.
    fn split<'x>(
        &mut self,
        args: &'x [Arg],
        allowed: &[&str],
        usage: &str,
    ) -> (Vec<Num>, Vec<Named<'x>>) {
        let mut positional = Vec::new();
        let mut named: Vec<Named<'x>> = Vec::new();
        for arg in args {
            match &arg.name {
                None => {
                    if let Some(n) = self.num(None, &arg.value) {
                        positional.push(n);
                    }
                }
                Some((n, span)) => {
                    if !allowed.contains(&n.as_str()) {
                        let kind = self.name;
                        let help = match hints::similar(n, allowed.iter().copied()) {
                            Some(close) => hints::did_you_mean(close),
                            None => format!("write `{usage}`"),
                        };
                        self.error(
                            Diagnostic::error(format!("`{kind}` has no parameter `{n}`"))
                                .with_label(*span, "unknown parameter")
                                .with_help(help),
                        );
                    } else if let Some((_, first, _)) = named.iter().find(|(m, _, _)| *m == n) {
                        let first = *first;
                        self.error(
                            Diagnostic::error(format!("parameter `{n}` is given twice"))
                                .with_label(*span, "given again here")
                                .with_secondary(first, "first given here"),
                        );
                    } else {
                        named.push((n.as_str(), *span, &arg.value));
                    }
                }
            }
        }
        (positional, named)
    }

    /// The number of an argument, or an error if it is a list; `name` is the parameter's.
    fn num(&mut self, name: Option<&str>, value: &ArgValue) -> Option<Num> {
        match value {
            ArgValue::Num(n) => Some(*n),
            ArgValue::List { span, .. } => {
                let what = name.map_or_else(|| "this parameter".into(), |n| format!("`{n}`"));
                self.error(
                    Diagnostic::error(format!("{what} takes a number, not a list"))
                        .with_label(*span, "a list"),
                );
                None
            }
        }
    }

    /// The `exact = [...]` and `max_step = R` arguments among `named`.
    fn needs(&mut self, named: &[Named<'_>]) -> GridNeeds {
        let mut needs = GridNeeds::default();
        for &(name, _, value) in named {
            match (name, value) {
                ("exact", ArgValue::List { items, .. }) => {
                    needs.exact =
                        Some(items.iter().map(|n| Spanned::new(n.value, n.span)).collect());
                }
                ("exact", ArgValue::Num(n)) => self.error(
                    Diagnostic::error("`exact` takes a list of values")
                        .with_label(n.span, "a single number")
                        .with_help("write `exact = [0]`, or `exact = []` to ask for no value"),
                ),
                ("max_step", value) => {
                    if let Some(n) = self.num(Some("max_step"), value) {
                        needs.max_step = Some(Spanned::new(n.value, n.span));
                    }
                }
                _ => {}
            }
        }
        needs
    }

    fn bounds(&mut self, positional: &[Num], usage: &str) -> Option<(Num, Num)> {
        match positional {
            [min, max] => Some((*min, *max)),
            _ => {
                let kind = self.name;
                let n = positional.len();
                let label = match positional.first() {
                    Some(first) => first.span.to(positional[n - 1].span),
                    None => self.span,
                };
                self.error(
                    Diagnostic::error(format!("`{kind}` takes 2 bounds, found {n}"))
                        .with_label(label, "expected `min, max`")
                        .with_help(format!("write `{usage}`")),
                );
                None
            }
        }
    }

    fn int(&mut self, args: Option<Vec<Arg>>) -> Option<TypeKind> {
        const USAGE: &str = "int(min, max)";
        let Some(args) = args else {
            self.error(
                Diagnostic::error("`int` needs bounds")
                    .with_label(self.name_span, "expected `int(min, max)`"),
            );
            return None;
        };
        let (positional, _) = self.split(&args, &[], USAGE);
        let (min, max) = self.bounds(&positional, USAGE)?;
        let mut int = |n: Num| match n.int {
            Some(v) => Some(Spanned::new(saturate_i64(v), n.span)),
            None => {
                self.error(
                    Diagnostic::error("`int` bounds must be integers")
                        .with_label(n.span, "not an integer")
                        .with_help("use `fixed(min, max, res = R)` for real numbers"),
                );
                None
            }
        };
        let (min, max) = (int(min), int(max));
        Some(TypeKind::Int { min: min?, max: max? })
    }

    fn fixed(&mut self, args: Option<Vec<Arg>>) -> Option<TypeKind> {
        const USAGE: &str = "fixed(min, max, res = R)` or `fixed(min, max, bits = N)";
        let Some(args) = args else {
            self.error(
                Diagnostic::error("`fixed` needs bounds and a precision")
                    .with_label(self.name_span, "expected `fixed(min, max, res = R)`")
                    .with_help(format!("write `{USAGE}`")),
            );
            return None;
        };
        let (positional, named) = self.split(&args, &["res", "bits", NEEDS[0], NEEDS[1]], USAGE);
        let bounds = self.bounds(&positional, USAGE);
        let needs = self.needs(&named);
        let named: Vec<Named<'_>> =
            named.into_iter().filter(|(n, _, _)| !NEEDS.contains(n)).collect();
        let precision = match named.as_slice() {
            // An unknown parameter was reported; it was probably meant as the precision.
            [] if args
                .iter()
                .any(|a| a.name.as_ref().is_some_and(|(n, _)| !NEEDS.contains(&n.as_str()))) =>
            {
                None
            }
            [] => {
                self.error(
                    Diagnostic::error("`fixed` needs a precision")
                        .with_label(self.span, "missing `res = R` or `bits = N`")
                        .with_help("e.g. `fixed(0, 20, res = 0.01)` or `fixed(0, 20, bits = 12)`"),
                );
                None
            }
            [(which, span, value)] => {
                let (which, span) = (*which, *span);
                let value = self.num(Some(which), value)?;
                let whole = span.to(value.span);
                if which == "res" {
                    Some(Spanned::new(Precision::Resolution(value.value), whole))
                } else {
                    self.bits_value(value).map(|b| Spanned::new(Precision::Bits(b.value), whole))
                }
            }
            [(first, first_span, _), (second, second_span, _), ..] => {
                let (first, second, first_span, second_span) =
                    (*first, *second, *first_span, *second_span);
                self.error(
                    Diagnostic::error(format!("`{first}` and `{second}` cannot both be given"))
                        .with_label(second_span, format!("`{second}` given here"))
                        .with_secondary(first_span, format!("`{first}` given here"))
                        .with_help(
                            "give either a resolution (`res = R`) or a bit count (`bits = N`)",
                        ),
                );
                None
            }
        };
        let (min, max) = bounds?;
        Some(TypeKind::Fixed {
            min: Spanned::new(min.value, min.span),
            max: Spanned::new(max.value, max.span),
            precision: precision?,
            needs,
        })
    }

    fn bits_value(&mut self, value: Num) -> Option<Spanned<u32>> {
        match value.int {
            Some(v) => Some(Spanned::new(saturate_u32(v), value.span)),
            None => {
                self.error(
                    Diagnostic::error("`bits` must be an integer")
                        .with_label(value.span, "not an integer"),
                );
                None
            }
        }
    }

    fn bits_kind(&mut self, args: Option<Vec<Arg>>) -> Option<TypeKind> {
        let name = self.name;
        let usage = format!("{name}(bits = N)");
        let args = args.unwrap_or_default();
        let (positional, named) = self.split(&args, &["bits", NEEDS[0], NEEDS[1]], &usage);
        if let Some(first) = positional.first() {
            self.error(
                Diagnostic::error(format!("`{name}` takes a named `bits = N`"))
                    .with_label(first.span, "expected `bits = N`")
                    .with_help(format!("write `{usage}`")),
            );
            return None;
        }
        let needs = self.needs(&named);
        let Some(&(_, span, value)) = named.iter().find(|(n, _, _)| *n == "bits") else {
            self.error(
                Diagnostic::error(format!("`{name}` needs a bit count"))
                    .with_label(self.span, "missing `bits = N`")
                    .with_help(format!("write `{usage}`")),
            );
            return None;
        };
        let value = self.num(Some("bits"), value)?;
        let bits = self.bits_value(value)?;
        let bits = Spanned::new(bits.value, span.to(value.span));
        Some(if name == "angle" {
            TypeKind::Angle { bits, needs }
        } else {
            TypeKind::Quat { bits, needs }
        })
    }
}
