//! The rules of what decides when a field is sent: update groups, the schedules of classes and
//! groups, and tolerances.

use super::Validator;
use super::structs::Clause;
use crate::diagnostic::Diagnostic;
use crate::hints;
use crate::ir::{Class, Field, FieldType, Precision, Schedule, TypeKind, tolerance_steps};
use crate::limits::{MAX_GROUPS, MAX_INTERVAL, MAX_PRIORITY, MAX_TOLERANCE_STEPS};
use crate::precision::sig;
use crate::span::Spanned;

impl Validator<'_> {
    /// Checks the class's schedule and its declared groups: names, count and schedules.
    pub(super) fn groups(&mut self, c: &Class) {
        self.schedule(&c.schedule);
        for g in &c.groups {
            self.ident(&g.name, g.span, "a group", false);
            self.schedule(&g.schedule);
        }
        let scope = format!(" in class `{}`", c.name);
        self.duplicates(c.groups.iter().map(|g| (g.name.as_str(), g.span, "group")), &scope);
        if let Some(extra) = c.groups.get(MAX_GROUPS - 1) {
            self.error(
                Diagnostic::error(format!(
                    "class `{}` has {} update groups, more than the limit of {MAX_GROUPS}",
                    c.name,
                    c.groups.len() + 1
                ))
                .with_label(extra.span, "one group too many")
                .with_note(
                    "the default group, which holds the fields of no named group, counts as one",
                ),
            );
        }
    }

    fn schedule(&mut self, schedule: &Schedule) {
        if let Some(every) = &schedule.every {
            let help = format!(
                "`every = N` sends the group at most every N frames, N up to {MAX_INTERVAL} (half the window of frames in flight)"
            );
            self.in_range(every, "every", MAX_INTERVAL, help);
        }
        if let Some(priority) = &schedule.priority {
            let help = "`priority = P` is what an entity waiting for bandwidth gains each frame the group is due; 1 is the lowest";
            self.in_range(priority, "priority", MAX_PRIORITY, help.into());
        }
    }

    /// Reports `value` (the parameter `name`) outside `1..=max`.
    fn in_range(&mut self, value: &Spanned<i64>, name: &str, max: i64, help: String) {
        if !(1..=max).contains(&value.value) {
            let label = if value.value < 1 { "too small" } else { "too large" };
            self.error(
                Diagnostic::error(format!("`{name}` must be between 1 and {max}"))
                    .with_label(value.span, label)
                    .with_help(help),
            );
        }
    }

    /// Checks that the field's `group(name)` names a group of its class.
    pub(super) fn field_group(&mut self, c: &Class, f: &Field) {
        let Some(group) = &f.group else { return };
        let name = group.value.as_str();
        if c.group_index(name).is_some() {
            return;
        }
        let help = match hints::similar(name, c.groups.iter().map(|g| g.name.as_str())) {
            Some(close) => hints::did_you_mean(close),
            None => format!(
                "declare it in the class: `group {name};` in `.netidl`, `#[netschema(group(name = \"{name}\"))]` on a derived struct"
            ),
        };
        self.error(
            Diagnostic::error(format!("unknown group `{name}` in class `{}`", c.name))
                .with_label(group.span, "not a group of this class")
                .with_help(help),
        );
    }

    /// Checks a `tolerance(V)` clause: on a numeric field, `V` from one step of the kind's
    /// grid to [`MAX_TOLERANCE_STEPS`] steps.
    pub(super) fn tolerance(&mut self, f: &Field) {
        let Some(tolerance) = &f.tolerance else { return };
        let reached = self.reached(&f.ty, Clause::Tolerance.own());
        if reached.is_none() {
            self.unreached(f, Clause::Tolerance, tolerance.span);
            return;
        }
        let v = tolerance.value;
        if !(v >= 0.0 && v.is_finite()) {
            let label = if v < 0.0 { "negative tolerance" } else { "not a finite number" };
            self.error(
                Diagnostic::error("the tolerance must be a positive number")
                    .with_label(tolerance.span, label)
                    .with_help("`tolerance(V)` is the error accepted, in the kind's units"),
            );
            return;
        }
        // A kind without a grid has its own error.
        // A tolerance reaching several grids is checked against each, reported once.
        let Some((ty, step, steps)) = reached.kinds.iter().find_map(|ty| {
            let step = ty.step()?;
            let steps = tolerance_steps(v, step);
            (steps == 0 || steps > u64::from(MAX_TOLERANCE_STEPS)).then_some((ty, step, steps))
        }) else {
            return;
        };
        if steps == 0 {
            self.error(
                Diagnostic::error(format!(
                    "tolerance {v} is below one step {}; it would be exact",
                    sig(step)
                ))
                .with_label(tolerance.span, "less than one step")
                .with_help(format!(
                    "use a tolerance of at least {}, or none for an exact field",
                    sig(step)
                )),
            );
        } else if steps > u64::from(MAX_TOLERANCE_STEPS) {
            let coarsest = f64::from(MAX_TOLERANCE_STEPS) * step;
            self.error(
                Diagnostic::error(format!(
                    "tolerance {v} is {steps} steps of {}, more than the limit of {MAX_TOLERANCE_STEPS}",
                    sig(step)
                ))
                .with_label(tolerance.span, "too large")
                .with_help(format!(
                    "the coarsest tolerance allowed is {} ({MAX_TOLERANCE_STEPS} steps); {}",
                    sig(coarsest),
                    coarser(ty)
                )),
            );
        }
    }
}

/// How a coarser grid allows a larger tolerance on `ty`.
fn coarser(ty: &FieldType) -> &'static str {
    match &ty.scalar().kind {
        TypeKind::Int { .. } => {
            "an `int` moves in steps of 1: store the value in coarser units for a larger one"
        }
        TypeKind::Fixed { precision, .. }
            if matches!(precision.value, Precision::Resolution(_)) =>
        {
            "coarsen the resolution (`res`) for a larger one"
        }
        _ => "coarsen the resolution (fewer `bits`) for a larger one",
    }
}
