//! Help texts shared by the parser and the validator.

/// The list of field kinds, for help lines.
pub(crate) const KINDS: &str =
    "the field kinds are int, fixed, angle, quat, bool, vec2, vec3, [K; N] and declared enums";

/// A help line for an unknown kind called `name`: a close equivalent when `name` looks like a
/// Rust or C type, else the list of kinds.
pub(crate) fn kind_hint(name: &str) -> String {
    match name {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "integer" | "uint"
        | "usize" | "isize" | "short" | "long" | "char" | "byte" => {
            "integers are declared with their range: `int(min, max)`".into()
        }
        "f32" | "f64" | "float" | "double" | "real" | "number" | "decimal" => {
            "reals are declared with their range and precision: `fixed(min, max, res = R)`".into()
        }
        "boolean" => "use `bool`".into(),
        "quaternion" | "rotation" | "quatf" => "use `quat(bits = N)`".into(),
        "vec4" | "vector" | "vec" | "array" | "list" => {
            "use `vec2<K>`, `vec3<K>` or a fixed-length array `[K; N]`".into()
        }
        "string" | "str" | "String" | "bytes" => {
            "netschema replicates numbers, bools and enums only; use an enum for a fixed set of names".into()
        }
        _ => KINDS.into(),
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
pub(crate) fn similar<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (distance(&name.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb { prev } else { 1 + prev.min(cur).min(row[j]) };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_names() {
        assert_eq!(similar("UnitStat", ["UnitState", "Particle"]), Some("UnitState"));
        assert_eq!(similar("Foo", ["UnitState", "Particle"]), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
