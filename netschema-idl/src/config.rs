//! The `build.rs` API: compile `.netidl` files into Rust modules in `OUT_DIR`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use crate::codegen::{self, Float, Options};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::error::Error;
use crate::load::load_with;
use crate::source::{FileSource, FsSource, SourceMap};

/// Compiles `.netidl` schemas into Rust, the way `prost-build` compiles `.proto` files.
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), netschema_idl::Error> {
///     netschema_idl::Config::new().compile(&["schema/game.netidl"])
/// }
/// ```
///
/// Each root file `schema/game.netidl` (with its imports) becomes `$OUT_DIR/game.rs`, which
/// `netschema::include_schema!("game")` includes. A file is only rewritten when its content
/// changes, so unchanged schemas do not trigger recompiles. Under Cargo, every file read is
/// printed as `cargo:rerun-if-changed=PATH`; note that printing any such line turns off
/// Cargo's default "rerun when anything in the package changes", so a build script that also
/// depends on other files must print its own lines for them.
pub struct Config {
    out_dir: Option<PathBuf>,
    crate_path: String,
    float: Float,
    emit_rerun_if_changed: bool,
    source: Box<dyn FileSource>,
    /// Priors to embed, by schema name.
    priors: Vec<(String, PathBuf)>,
    /// Predictive contracts to attach, by schema name: the contract's name and path.
    contracts: Vec<(String, String, String)>,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

impl core::fmt::Debug for Config {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Config")
            .field("out_dir", &self.out_dir)
            .field("crate_path", &self.crate_path)
            .field("float", &self.float)
            .field("emit_rerun_if_changed", &self.emit_rerun_if_changed)
            .finish_non_exhaustive()
    }
}

impl Config {
    /// The defaults: output to `OUT_DIR`, runtime crate `::netschema`, rerun-if-changed lines
    /// when run by Cargo (the `CARGO` environment variable is set), files read from disk.
    pub fn new() -> Config {
        Config {
            out_dir: None,
            crate_path: "::netschema".to_owned(),
            float: Float::F32,
            emit_rerun_if_changed: env::var_os("CARGO").is_some(),
            source: Box::new(FsSource),
            priors: Vec::new(),
            contracts: Vec::new(),
        }
    }

    /// Writes generated files to `dir` instead of `OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Config {
        self.out_dir = Some(dir.into());
        self
    }

    /// Names the runtime crate `path` in generated code (default `::netschema`; the path must
    /// lead to the `netschema` facade or a re-export of it).
    pub fn crate_path(&mut self, path: impl Into<String>) -> &mut Config {
        self.crate_path = path.into();
        self
    }

    /// The Rust type of generated `fixed`, `angle` and `quat` fields (default `f32`; see
    /// [`codegen::Options::float`]).
    pub fn float(&mut self, float: Float) -> &mut Config {
        self.float = float;
        self
    }

    /// Whether to print `cargo:rerun-if-changed=PATH` for every file read.
    pub fn emit_rerun_if_changed(&mut self, on: bool) -> &mut Config {
        self.emit_rerun_if_changed = on;
        self
    }

    /// Embeds the prior at `path` (a file `netschema train` wrote for it) in the schema called
    /// `schema` (its root file's stem): every connection starts from it
    /// (`Schema::with_prior`). The path is made absolute against the current directory (a
    /// build script's is the crate's manifest directory).
    pub fn prior(&mut self, schema: impl Into<String>, path: impl Into<PathBuf>) -> &mut Config {
        let path: PathBuf = path.into();
        let path = env::current_dir().map(|d| d.join(&path)).unwrap_or(path);
        self.priors.push((schema.into(), path));
        self
    }

    /// Attaches the predictive contract at `path` (a Rust path, from the generated file, to a
    /// `static` implementing `model::contract::Contract`) to the schema called `schema` (its
    /// root file's stem) under `name`, which joins the hash (`Schema::with_contract`): fields
    /// listing the `contract` candidate use it, on the raw engine and the owned layer alike.
    pub fn contract(
        &mut self,
        schema: impl Into<String>,
        name: impl Into<String>,
        path: impl Into<String>,
    ) -> &mut Config {
        self.contracts.push((schema.into(), name.into(), path.into()));
        self
    }

    /// Reads schema files from `source` instead of the file system (for tests and tools).
    pub fn file_source(&mut self, source: impl FileSource + 'static) -> &mut Config {
        self.source = Box::new(source);
        self
    }

    /// Compiles each root file (following its imports) and writes `<stem>.rs` for each.
    /// Every root is compiled even if an earlier one fails; the errors of all are returned
    /// together.
    pub fn compile(&self, roots: &[impl AsRef<Path>]) -> Result<(), Error> {
        let options = match Options::parse_crate_path(&self.crate_path) {
            Ok(path) => Options::new().crate_path(path).float(self.float),
            Err(msg) => return Err(plain_error(msg, Vec::new())),
        };
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => match env::var_os("OUT_DIR") {
                Some(dir) => PathBuf::from(dir),
                None => {
                    return Err(plain_error(
                        "`OUT_DIR` is not set: run from a build script, or set `Config::out_dir`",
                        Vec::new(),
                    ));
                }
            },
        };
        let mut failures: Vec<Error> = Vec::new();
        let mut outputs: Vec<(PathBuf, String)> = Vec::new();
        for root in roots {
            match load_with(self.source.as_ref(), root.as_ref()) {
                Ok(loaded) => {
                    self.rerun(&loaded.files);
                    let stem = loaded.schema.name.clone();
                    if outputs.iter().any(|(p, _)| p.file_stem() == Some(stem.as_ref())) {
                        failures.push(plain_error(
                            format!(
                                "two root files are named `{stem}`: both would write `{stem}.rs`"
                            ),
                            loaded.files,
                        ));
                        continue;
                    }
                    let prior = self.priors.iter().find(|(name, _)| *name == stem);
                    let options = match prior {
                        Some((_, path)) => {
                            self.rerun(std::slice::from_ref(path));
                            options.clone().prior(path.display().to_string())
                        }
                        None => options.clone(),
                    };
                    let options = match self.contracts.iter().find(|(name, ..)| *name == stem) {
                        Some((_, name, path)) => match syn::parse_str::<syn::Path>(path) {
                            Ok(path) => options.contract(name.clone(), path),
                            Err(e) => {
                                let msg = format!("contract `{path}` is not a Rust path: {e}");
                                failures.push(plain_error(msg, loaded.files));
                                continue;
                            }
                        },
                        None => options,
                    };
                    let text = codegen::generate_file(&loaded.schema, &options);
                    outputs.push((out_dir.join(format!("{stem}.rs")), text));
                }
                Err(err) => {
                    self.rerun(err.files());
                    failures.push(err);
                }
            }
        }
        if !failures.is_empty() {
            return Err(merge(failures));
        }
        for (path, text) in outputs {
            if let Err(e) = write_if_changed(&path, &text) {
                return Err(plain_error(
                    format!("cannot write `{}`: {e}", path.display()),
                    Vec::new(),
                ));
            }
        }
        Ok(())
    }

    fn rerun(&self, files: &[PathBuf]) {
        if self.emit_rerun_if_changed {
            for file in files {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
    }
}

/// Writes `text` to `path` unless the file already holds exactly that. Returns whether it wrote.
pub(crate) fn write_if_changed(path: &Path, text: &str) -> std::io::Result<bool> {
    if fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(false);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    fs::write(path, text)?;
    Ok(true)
}

fn plain_error(message: impl Into<String>, files: Vec<PathBuf>) -> Error {
    Error::new(Diagnostics::new(vec![Diagnostic::error(message)], SourceMap::new()), files)
}

/// One error holding every diagnostic of `errors`, rendered in order.
fn merge(mut errors: Vec<Error>) -> Error {
    if errors.len() == 1 {
        return errors.remove(0);
    }
    // Diagnostics of different compilations refer to different source maps: render each
    // and carry the text as one located-nowhere diagnostic per error.
    let mut files = Vec::new();
    let mut list = Vec::new();
    for err in errors {
        files.extend(err.files().iter().cloned());
        let text = err.diagnostics().iter().map(|d| d.render(err.diagnostics().sources()));
        for rendered in text {
            let rendered = rendered.trim_end().trim_start_matches("error: ").to_owned();
            list.push(Diagnostic::error(rendered));
        }
    }
    Error::new(Diagnostics::new(list, SourceMap::new()), files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = env::temp_dir().join(format!("netschema-config-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn writes_once_and_only_on_change() {
        let dir = temp_dir("write");
        let files = MemorySource::new()
            .with("s/game.netidl", "import \"common.netidl\";\nclass A { x: int(0, 3); s: S; }")
            .with("s/common.netidl", "enum S { a, b }");
        let mut config = Config::new();
        config.out_dir(&dir).emit_rerun_if_changed(false).file_source(files);
        config.compile(&["s/game.netidl"]).unwrap();
        let path = dir.join("game.rs");
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(codegen::HEADER));
        assert!(text.contains("pub struct A"));
        assert!(!write_if_changed(&path, &text).unwrap());
        assert!(write_if_changed(&path, "changed").unwrap());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn errors_render_diagnostics() {
        let dir = temp_dir("errors");
        let files = MemorySource::new()
            .with("a.netidl", "class A { x: int(3, 0); }")
            .with("b.netidl", "class B { y: nope; }");
        let mut config = Config::new();
        config.out_dir(&dir).emit_rerun_if_changed(false).file_source(files);
        let err = config.compile(&["a.netidl", "b.netidl"]).unwrap_err();
        let text = format!("{err:?}");
        assert!(text.contains("`min` must be less than `max`"), "{text}");
        assert!(text.contains("unknown type `nope`"), "{text}");
        assert!(text.contains("a.netidl:1:18"), "{text}");
        assert!(!dir.exists());
        let err = Config::new().crate_path("not a path").out_dir(&dir).compile(&["a.netidl"]);
        assert!(format!("{:?}", err.unwrap_err()).contains("not a valid Rust path"));
    }
}
