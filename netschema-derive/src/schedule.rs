//! The struct attributes of `#[derive(Snapshot)]` that schedule its fields: `every = N` and
//! `priority = P` for the class's default group, and `group(name = "...", every = N,
//! priority = P)` declaring an update group.

use netschema_idl::Spanned as IrSpanned;
use netschema_idl::ir::{Group, Schedule};
use syn::Expr;
use syn::meta::ParseNestedMeta;

use crate::lower::{Ctxt, int_value};

/// What the struct's attributes say about its update groups.
#[derive(Default)]
pub(crate) struct ClassAttrs {
    /// The default group's schedule.
    pub(crate) schedule: Schedule,
    /// The declared groups, in order.
    pub(crate) groups: Vec<Group>,
}

impl ClassAttrs {
    /// The error for an attribute of the struct that is none of its own.
    pub(crate) const UNKNOWN: &'static str = "unknown netschema attribute on the struct: expected `crate = \"path\"`, `protocol = \"Schema\"`, `every = N`, `priority = P` or `group(name = \"...\", every = N, priority = P)` (field kinds go on fields)";

    /// Reads `meta` if it is `every`, `priority` or `group(...)`; whether it was.
    pub(crate) fn read(&mut self, cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
        if meta.path.is_ident("group") {
            if let Some(group) = group(cx, meta)? {
                self.groups.push(group);
            }
            return Ok(true);
        }
        schedule_param(cx, meta, &mut self.schedule)
    }
}

/// Reads `meta` into `schedule` if it is `every = N` or `priority = P`; whether it was.
fn schedule_param(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    schedule: &mut Schedule,
) -> syn::Result<bool> {
    let (name, slot) = if meta.path.is_ident("every") {
        ("every", &mut schedule.every)
    } else if meta.path.is_ident("priority") {
        ("priority", &mut schedule.priority)
    } else {
        return Ok(false);
    };
    let value: Expr = meta.value()?.parse()?;
    let value = int_value(cx, &value, &format!("`{name}` must be an integer"));
    if slot.is_some() {
        cx.error(&meta.path, format!("duplicate `{name}`"));
    } else {
        *slot = value;
    }
    Ok(true)
}

/// Reads `group(name = "...", every = N, priority = P)`; `None` if the name is missing (and
/// reported).
fn group(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Group>> {
    let mut name: Option<syn::LitStr> = None;
    let mut schedule = Schedule::default();
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("name") {
            let lit: syn::LitStr = inner.value()?.parse()?;
            if name.replace(lit).is_some() {
                cx.error(&inner.path, "duplicate `name`");
            }
            Ok(())
        } else if schedule_param(cx, &inner, &mut schedule)? {
            Ok(())
        } else {
            Err(inner.error(
                "unknown parameter of `group(...)`: expected `name = \"...\"`, `every = N` or `priority = P`",
            ))
        }
    })?;
    let Some(name) = name else {
        cx.error(&meta.path, "`group(...)` needs a name: `group(name = \"slow\", every = 8)`");
        return Ok(None);
    };
    let IrSpanned { value, span } = cx.spanned(name.value(), &name);
    let mut group = Group::new(value, schedule);
    group.span = span;
    Ok(Some(group))
}
