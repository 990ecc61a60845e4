//! `crdstore feature-gates`, which is also the `kubectl feature-gates`
//! plugin when invoked as `kubectl-feature_gates`: the field-level feature
//! gates of the server in the current kubeconfig, as a table like `kubectl
//! api-resources` prints.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct FeatureGatesArgs {
    /// Only the gates of this definition (`<plural>.<group>`).
    #[arg(long)]
    definition: Option<String>,
    /// Only the gates of this component.
    #[arg(long)]
    component: Option<String>,
    /// Output format: the table, or the server's JSON document.
    #[arg(short, long, default_value = "table", value_parser = ["table", "json"])]
    output: String,
    /// Don't print headers.
    #[arg(long)]
    no_headers: bool,
    /// Passed on to kubectl, which reads the kubeconfig and talks to the
    /// server (`--kubeconfig`, `--context`, `--server`...).
    #[arg(long)]
    kubeconfig: Option<String>,
    #[arg(long)]
    context: Option<String>,
    #[arg(short, long)]
    server: Option<String>,
}

/// The name kubectl runs the plugin by: `kubectl feature-gates`.
pub const PLUGIN: &str = "kubectl-feature_gates";

/// The gates, read through kubectl (`kubectl get --raw /featuregates`), so
/// the current kubeconfig's server, credentials and TLS apply as they do to
/// kubectl itself; printed as a table or as JSON.
pub fn feature_gates(args: FeatureGatesArgs) -> ExitCode {
    let mut query: Vec<String> = Vec::new();
    for (name, value) in [("definition", &args.definition), ("component", &args.component)] {
        if let Some(value) = value {
            query.push(form_urlencoded::Serializer::new(String::new()).append_pair(name, value).finish());
        }
    }
    let path =
        if query.is_empty() { "/featuregates".to_string() } else { format!("/featuregates?{}", query.join("&")) };
    let kubectl = std::env::var("KUBECTL").unwrap_or_else(|_| "kubectl".into());
    let mut command = std::process::Command::new(kubectl);
    command.args(["get", "--raw", &path]);
    for (flag, value) in [("--kubeconfig", &args.kubeconfig), ("--context", &args.context), ("--server", &args.server)]
    {
        if let Some(value) = value {
            command.arg(format!("{flag}={value}"));
        }
    }
    let output = match command.stderr(std::process::Stdio::inherit()).output() {
        Ok(output) if output.status.success() => output.stdout,
        Ok(_) => return ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: running kubectl: {err}");
            return ExitCode::FAILURE;
        }
    };
    let doc: serde_json::Value = match serde_json::from_slice(&output) {
        Ok(doc) => doc,
        Err(err) => {
            eprintln!("error: the server's answer is not a feature gate list: {err}");
            return ExitCode::FAILURE;
        }
    };
    if args.output == "json" {
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    print!("{}", gate_table(&doc, !args.no_headers));
    ExitCode::SUCCESS
}

/// The gates as `kubectl api-resources` prints resources: upper-case
/// headers, columns padded to their widest cell and three spaces apart.
fn gate_table(doc: &serde_json::Value, headers: bool) -> String {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    if headers {
        rows.push(
            ["NAME", "DEFINITION", "COMPONENT", "STAGE", "DEFAULT", "ENABLED", "EFFECTIVE", "PATHS"]
                .map(String::from)
                .to_vec(),
        );
    }
    for gate in doc["items"].as_array().into_iter().flatten() {
        let paths: Vec<String> = gate["paths"].as_array().into_iter().flatten().map(text).collect();
        rows.push(vec![
            text(&gate["name"]),
            text(&gate["definition"]),
            text(&gate["component"]),
            text(&gate["stage"]),
            text(&gate["default"]),
            text(&gate["enabled"]),
            text(&gate["effective"]),
            paths.join(","),
        ]);
    }
    let widths: Vec<usize> = (0..8).map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("   ").trim_end());
        out.push('\n');
    }
    out
}
