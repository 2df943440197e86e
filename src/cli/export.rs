//! export: the graph in another tool's format, written to a file (atomically:
//! a CI job never uploads half an index) or to stdout.

use super::*;

use ripple::export::scip::{self, PackageOverrides, ScipOptions};

pub(super) fn cmd_export(
    repo: &std::path::Path,
    format: &ExportFormat,
    json: bool,
) -> Result<ExitCode> {
    let ExportFormat::Scip {
        output,
        min_confidence,
        project_name,
        project_version,
        module_version,
    } = format;
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && json {
        return Err(UsageError(
            "-o - writes the index to stdout, --json a summary there: give one (or -o FILE --json)"
                .to_owned(),
        )
        .into());
    }
    let index = open(repo)?;
    let opts = ScipOptions {
        min_confidence: (*min_confidence).into(),
        packages: PackageOverrides {
            project_name: project_name.clone(),
            project_version: project_version.clone(),
            module_version: module_version.clone(),
        },
        arguments: std::env::args().collect(),
    };
    let started = std::time::Instant::now();
    let bar = bar_with("{spinner} writing SCIP {pos}/{len} documents {wide_bar} {eta}");
    let summary = if to_stdout {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        scip::write(&index, &opts, &mut out, &bar)?
    } else {
        write_atomically(output, |out| Ok(scip::write(&index, &opts, out, &bar)?))?
    };
    let seconds = started.elapsed().as_secs_f64();
    if json {
        print_json(
            &mut std::io::stdout().lock(),
            &json::ExportDoc {
                output: output.display().to_string(),
                min_confidence: Confidence::from(*min_confidence).name(),
                seconds: (seconds * 1000.0).round() / 1000.0,
                summary: &summary,
            },
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    // With the index on stdout, the report goes to stderr.
    let report = report_text(&summary, output, (*min_confidence).into(), seconds);
    if to_stdout {
        eprint!("{}", ripple::terminal_text::strip(&report));
    } else {
        let mut out = TerminalWriter::new(std::io::stdout().lock(), true);
        out.write_all(report.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn report_text(
    s: &scip::ScipSummary,
    output: &std::path::Path,
    min: Confidence,
    seconds: f64,
) -> String {
    let mut text = format!(
        "wrote {} ({}, {:.2} s): {} documents, {} definitions, {} references, {} relationships, {} external symbols\n",
        if output.as_os_str() == "-" {
            "the SCIP index to stdout".to_owned()
        } else {
            output.display().to_string()
        },
        human_bytes(s.bytes),
        seconds,
        s.documents,
        s.definitions,
        s.references,
        s.relationships,
        s.external_symbols,
    );
    text.push_str(&format!(
        "  python symbols under distribution `{}`, go under module version {}\n",
        s.python_package, s.go_module_version
    ));
    if s.left_out > 0 {
        text.push_str(&format!(
            "  {} call edges below --min-confidence {} left out\n",
            s.left_out,
            min.name()
        ));
    }
    if s.unnamed > 0 {
        text.push_str(&format!(
            "  {} calls into a lambda or function literal of another file have no symbol there\n",
            s.unnamed
        ));
    }
    if !s.unreadable.is_empty() {
        text.push_str(&format!(
            "  {} files changed while exporting were written without occurrences (run the export again): {}\n",
            s.unreadable.len(),
            s.unreadable.join(", ")
        ));
    }
    text
}

fn human_bytes(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{n} bytes")
    }
}

/// Write `path` through a temporary file beside it, renamed over it only
/// when `write` succeeded.
fn write_atomically<T>(
    path: &std::path::Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<T>,
) -> Result<T> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file; give -o FILE", path.display()))?;
    if !dir.is_dir() {
        return Err(UsageError(format!(
            "cannot write {}: the directory {} does not exist; create it or give another -o FILE",
            path.display(),
            dir.display()
        ))
        .into());
    }
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let file = std::fs::File::create(&tmp).with_context(|| {
        format!(
            "cannot create {} (does the directory exist and can you write to it?)",
            tmp.display()
        )
    })?;
    let mut out = std::io::BufWriter::new(file);
    let result = write(&mut out).and_then(|v| {
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(v)
    });
    match result {
        Ok(v) => {
            std::fs::rename(&tmp, path).with_context(|| {
                format!("cannot move the index into place at {}", path.display())
            })?;
            Ok(v)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e.context(format!("writing {}", path.display())))
        }
    }
}
