//! Help texts shared by the parser and the validator, and the "did you mean" search over the
//! language's words.

/// The words that start an item.
pub(crate) const ITEM_KEYWORDS: [&str; 6] = ["enum", "struct", "class", "input", "event", "import"];

/// The built-in field kinds.
pub(crate) const KIND_NAMES: [&str; 12] = [
    "int", "fixed", "angle", "quat", "bool", "vec2", "vec3", "optional", "list", "ref", "string",
    "bytes",
];

/// The clauses that may follow a field's kind.
pub(crate) const CLAUSES: [&str; 4] = ["predict", "tolerance", "group", "timeline"];

/// The interpolations of a timeline.
pub(crate) const INTERPS: [&str; 3] = ["step", "linear", "cubic"];

/// The named parameters of a timeline.
pub(crate) const TIMELINE_PARAMS: [&str; 3] = ["ahead", "history", "keep"];

/// The parameters of a class or an update group.
pub(crate) const SCHEDULE_PARAMS: [&str; 2] = ["every", "priority"];

/// The predictor names, in tie-break order.
pub(crate) fn predictor_names() -> impl Iterator<Item = &'static str> {
    crate::ir::Predictor::ALL.into_iter().map(crate::ir::Predictor::name)
}

/// `did you mean `word`?`, the help line of a likely typo.
pub(crate) fn did_you_mean(word: &str) -> String {
    format!("did you mean `{word}`?")
}

/// The list of field kinds, for help lines.
pub(crate) const KINDS: &str = "the field kinds are int, fixed, angle, quat, bool, vec2, vec3, [K; N], optional<K>, list<K, N>, ref<Class>, string<N>, bytes<N> and declared enums and structs";

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
        "Option" | "option" | "maybe" | "nullable" => "use `optional<K>`".into(),
        "reference" | "Ref" | "entity" | "handle" | "id" | "pointer" | "link" => {
            "a reference to another entity is `ref<Class>`, or `ref<any>`".into()
        }
        "str" | "String" | "text" | "Text" => {
            "a string is declared with its most bytes: `string<N>`".into()
        }
        "Vec" | "blob" | "Blob" | "bytearray" | "buffer" => {
            "a byte blob is declared with its most bytes: `bytes<N>`".into()
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

/// Edit distance over characters, counting an insertion, a deletion, a substitution or a swap
/// of two neighbours as one edit (optimal string alignment), so `angel` is one edit from
/// `angle`.
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // d[i][j]: the distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let substitution = d[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = substitution.min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_names() {
        assert_eq!(similar("UnitStat", ["UnitState", "Particle"]), Some("UnitState"));
        assert_eq!(similar("Foo", ["UnitState", "Particle"]), None);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("angel", "angle"), 1);
        assert_eq!(distance("predcit", "predict"), 1);
    }

    #[test]
    fn typos_of_the_language_words() {
        assert_eq!(similar("clas", ITEM_KEYWORDS), Some("class"));
        assert_eq!(similar("inptu", ITEM_KEYWORDS), Some("input"));
        assert_eq!(similar("imprt", ITEM_KEYWORDS), Some("import"));
        assert_eq!(similar("fixd", KIND_NAMES), Some("fixed"));
        assert_eq!(similar("angel", KIND_NAMES), Some("angle"));
        assert_eq!(similar("predcit", CLAUSES), Some("predict"));
        assert_eq!(similar("tolerence", CLAUSES), Some("tolerance"));
        assert_eq!(similar("grup", CLAUSES), Some("group"));
        assert_eq!(similar("evry", SCHEDULE_PARAMS), Some("every"));
        assert_eq!(similar("lineer", predictor_names()), Some("linear"));
        assert_eq!(similar("banana", KIND_NAMES), None);
    }
}
