//! A unified diff of two texts, line by line, for `netschema fmt --check`.

use std::fmt::Write as _;

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// One line of the edit script from the old text to the new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// The shortest edit script from `old` to `new` (longest common subsequence of lines).
fn edits<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Edit<'a>> {
    let (n, m) = (old.len(), new.len());
    // lcs[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(n.max(m));
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            out.push(Edit::Same(old[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(Edit::Removed(old[i]));
            i += 1;
        } else {
            out.push(Edit::Added(new[j]));
            j += 1;
        }
    }
    out
}

/// The unified diff (`--- name`, `+++ name`, `@@` hunks with 3 lines of context) turning
/// `old` into `new`; empty if they are equal.
pub(crate) fn unified(name: &str, old: &str, new: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let script = edits(&old_lines, &new_lines);
    let changed: Vec<usize> =
        (0..script.len()).filter(|&k| !matches!(script[k], Edit::Same(_))).collect();
    let Some(&first) = changed.first() else {
        return String::new();
    };
    let mut out = format!("--- {name}\n+++ {name} (formatted)\n");
    // Group changes whose contexts touch into hunks of script indices.
    let mut hunks = vec![(first.saturating_sub(CONTEXT), first)];
    for &k in &changed[1..] {
        let last = hunks.last_mut().expect("one hunk at least");
        if k <= last.1 + 2 * CONTEXT + 1 {
            last.1 = k;
        } else {
            hunks.push((k.saturating_sub(CONTEXT), k));
        }
    }
    for (start, last) in hunks {
        let end = (last + CONTEXT + 1).min(script.len());
        // Line numbers (from 1) where the hunk starts in each text.
        let before = &script[..start];
        let old_at = 1 + before.iter().filter(|e| !matches!(e, Edit::Added(_))).count();
        let new_at = 1 + before.iter().filter(|e| !matches!(e, Edit::Removed(_))).count();
        let hunk = &script[start..end];
        let old_len = hunk.iter().filter(|e| !matches!(e, Edit::Added(_))).count();
        let new_len = hunk.iter().filter(|e| !matches!(e, Edit::Removed(_))).count();
        let _ = writeln!(out, "@@ -{old_at},{old_len} +{new_at},{new_len} @@");
        for edit in hunk {
            let _ = match edit {
                Edit::Same(line) => writeln!(out, " {line}"),
                Edit::Removed(line) => writeln!(out, "-{line}"),
                Edit::Added(line) => writeln!(out, "+{line}"),
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified("a", "x\ny\n", "x\ny\n"), "");
    }

    #[test]
    fn hunks_keep_three_lines_of_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n";
        let diff = unified("f", old, new);
        let expected = "--- f\n+++ f (formatted)\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n";
        assert_eq!(diff, expected);
    }
}
