//! The real kubectl against crdstore's REST gateway, end to end: a
//! definition with status, scale and printer columns, then every everyday
//! command on its objects.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

use crate::support::TestServer;

const DEFINITION: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Color, type: string, jsonPath: .spec.color}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, maximum: 10}
              color: {type: string, description: "The widget's color."}
          status:
            type: object
            properties:
              replicas: {type: integer}
"#;

const WIDGET: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, labels: {app: web}}\nspec: {replicas: 2, color: blue}\n";
const UNKNOWN_FIELD: &str =
    "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {replicas: 2, colour: blue}\n";

pub(crate) struct Kubectl {
    kubeconfig: std::path::PathBuf,
    pub(crate) dir: tempfile::TempDir,
}

impl Kubectl {
    pub(crate) fn new(server: &TestServer) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = dir.path().join("kubeconfig");
        let config = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- cluster: {{server: \"http://{}\"}}\n  name: crdstore\ncontexts:\n- context: {{cluster: crdstore, user: me, namespace: default}}\n  name: crdstore\ncurrent-context: crdstore\nusers:\n- name: me\n  user: {{}}\n",
            server.server().http_addr
        );
        std::fs::write(&kubeconfig, config).unwrap();
        Self { kubeconfig, dir }
    }

    pub(crate) fn file(&self, name: &str, content: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path.display().to_string()
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        assert!(which("kubectl"), "kubectl must be installed (see README)");
        let mut command = Command::new("kubectl");
        command.args(args).env("KUBECONFIG", &self.kubeconfig).env("HOME", self.dir.path()).kill_on_drop(true);
        command
    }

    /// Runs kubectl; returns (success, stdout, stderr).
    pub(crate) async fn run(&self, args: &[&str]) -> (bool, String, String) {
        let out = self.command(args).output().await.unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
    }

    pub(crate) async fn ok(&self, args: &[&str]) -> String {
        let (ok, stdout, stderr) = self.run(args).await;
        assert!(ok, "kubectl {args:?} failed: {stderr}{stdout}");
        stdout
    }
}

/// Reads a watch's output until a line starts with `event`.
/// Reads the watch's output until a whole line (ended by a newline: a read
/// may stop mid-line) starts with `event`.
async fn read_until(stdout: &mut tokio::process::ChildStdout, seen: &mut String, event: &str) {
    let mut buf = [0u8; 4096];
    while !seen.split_inclusive('\n').any(|l| l.starts_with(event) && l.ends_with('\n')) {
        let n = tokio::time::timeout(Duration::from_secs(20), stdout.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("the watch showed no {event} event: {seen}"))
            .unwrap();
        assert!(n > 0, "the watch ended early: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|p| p.join(program).exists()))
}

#[tokio::test]
async fn kubectl_works_against_crdstore() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let crd = k.file("crd.yaml", DEFINITION);
    assert!(k
        .ok(&["apply", "-f", &crd])
        .await
        .contains("customresourcedefinition.apiextensions.k8s.io/widgets.example.com created"));
    k.ok(&["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=20s"]).await;

    let widget = k.file("widget.yaml", WIDGET);
    assert!(k.ok(&["apply", "-f", &widget]).await.contains("widget.example.com/w1 created"));
    let table = k.ok(&["get", "widgets"]).await;
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "REPLICAS", "COLOR"], "{table}");
    let row: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(row, ["w1", "2", "blue"], "{table}");

    let yaml = k.ok(&["get", "wd", "w1", "-o", "yaml"]).await;
    assert!(yaml.contains("kind: Widget") && yaml.contains("color: blue") && yaml.contains("uid:"), "{yaml}");

    k.ok(&["patch", "widget", "w1", "--type=merge", "-p", r#"{"spec":{"color":"red"}}"#]).await;
    k.ok(&["scale", "widget", "w1", "--replicas=5"]).await;
    let fields = k.ok(&["get", "widget", "w1", "-o", "jsonpath={.spec.replicas} {.spec.color}"]).await;
    assert_eq!(fields, "5 red");
    let status = k.ok(&["get", "widget", "w1", "--subresource=status", "-o", "jsonpath={.metadata.name}"]).await;
    assert_eq!(status, "w1");

    let resources = k.ok(&["api-resources"]).await;
    assert!(
        resources.lines().any(|l| l.starts_with("widgets") && l.contains("example.com/v1") && l.contains("Widget")),
        "{resources}"
    );
    let explained = k.ok(&["explain", "widgets.spec"]).await;
    assert!(explained.contains("color") && explained.contains("The widget's color."), "{explained}");

    // A watch sees a change made while it runs: once it shows the object,
    // the object changes.
    let mut watch =
        k.command(&["get", "widgets", "-w", "--output-watch-events"]).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdout = watch.stdout.take().unwrap();
    let mut seen = String::new();
    read_until(&mut stdout, &mut seen, "ADDED").await;
    k.ok(&["patch", "widget", "w1", "--type=merge", "-p", r#"{"spec":{"color":"green"}}"#]).await;
    read_until(&mut stdout, &mut seen, "MODIFIED").await;
    let modified: Vec<&str> = seen.lines().find(|l| l.starts_with("MODIFIED")).unwrap().split_whitespace().collect();
    assert_eq!(modified, ["MODIFIED", "w1", "5", "green"], "{seen}");
    watch.kill().await.unwrap();

    let unknown = k.file("unknown.yaml", UNKNOWN_FIELD);
    let (ok, _, stderr) = k.run(&["apply", "-f", &unknown, "--validate=strict"]).await;
    assert!(!ok && stderr.contains(r#"unknown field "spec.colour""#), "{stderr}");

    assert!(k.ok(&["delete", "widget", "w1"]).await.contains(r#"widget.example.com "w1" deleted"#));
    let (_, stdout, stderr) = k.run(&["get", "widgets"]).await;
    assert!(format!("{stdout}{stderr}").contains("No resources found"), "{stdout}{stderr}");
}

/// `kubectl get --sort-by` asks for Tables with whole objects
/// (`includeObject=Object`) and sorts the rows by them.
#[tokio::test]
async fn kubectl_sorts_rows_by_a_field_of_the_objects() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let crd = k.file("crd.yaml", DEFINITION);
    k.ok(&["apply", "-f", &crd]).await;
    k.ok(&["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=20s"]).await;
    let widgets: String = [("a", 3, "red"), ("b", 1, "blue"), ("c", 2, "green")]
        .iter()
        .map(|(name, replicas, color)| {
            format!("apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: {name}}}\nspec: {{replicas: {replicas}, color: {color}}}\n---\n")
        })
        .collect();
    let file = k.file("widgets.yaml", &widgets);
    k.ok(&["apply", "-f", &file]).await;
    let sorted = k.ok(&["get", "widgets", "--sort-by=.spec.replicas"]).await;
    let names: Vec<&str> = sorted.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(names, ["b", "c", "a"], "{sorted}");
    let by_color = k.ok(&["get", "widgets", "--sort-by=.spec.color", "--no-headers"]).await;
    let rows: Vec<Vec<&str>> = by_color.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows, [["b", "1", "blue"], ["c", "2", "green"], ["a", "3", "red"]], "{by_color}");
    assert!(k.ok(&["get", "widget", "a", "-o", "name"]).await.contains("widget.example.com/a"));
}

/// `kubectl explain` walks the published schemas into `ObjectMeta` (a
/// custom resource's `metadata`) and into `CustomResourceDefinition`.
#[tokio::test]
async fn kubectl_explains_metadata_and_definitions() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let crd = k.file("crd.yaml", DEFINITION);
    k.ok(&["apply", "-f", &crd]).await;
    k.ok(&["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=20s"]).await;
    let labels = k.ok(&["explain", "widgets.metadata.labels"]).await;
    assert!(labels.contains("labels") && labels.contains("Map of string keys and values"), "{labels}");
    let metadata = k.ok(&["explain", "widgets.metadata"]).await;
    assert!(metadata.contains("ObjectMeta") && metadata.contains("creationTimestamp"), "{metadata}");
    let names = k.ok(&["explain", "crd.spec.names"]).await;
    assert!(names.contains("plural") && names.contains("shortNames") && names.contains("listKind"), "{names}");
    let gates = k.ok(&["explain", "crd.spec.customFeatureGates"]).await;
    assert!(gates.contains("featureGates"), "{gates}");
    // kubectl reads OpenAPI v2 only as protobuf, which is not served yet.
    let (_, stdout, stderr) = k.run(&["get", "widgets"]).await;
    assert!(format!("{stdout}{stderr}").contains("No resources found"), "{stdout}{stderr}");
}

/// kubectl against a two-version definition that converts through a webhook
/// the test serves over HTTPS: objects applied at either version read at
/// both, `kubectl get <plural>.v1.<group>` and `.v2.` show them converted.
#[tokio::test]
async fn kubectl_reads_every_version_through_a_conversion_webhook() {
    use crate::conversion_webhook::Webhook;
    use crate::support::{version, Crd};
    let hook = Webhook::start().await;
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let crd = Crd::new("example.com", "Widget")
        .versions(vec![version("v1", true), version("v2", false)])
        .set("/spec/conversion", hook.conversion(&["v1"]));
    let crd = k.file("crd.json", &serde_json::to_string(&crd.value).unwrap());
    k.ok(&["apply", "-f", &crd]).await;
    k.ok(&["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=20s"]).await;
    let at_v1 = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: old}\nspec: {hostPort: \"db:5432\"}\n";
    let at_v2 = "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: new}\nspec: {host: cache, port: 6379}\n";
    k.ok(&["apply", "-f", &k.file("v1.yaml", at_v1)]).await;
    k.ok(&["apply", "-f", &k.file("v2.yaml", at_v2)]).await;
    let v1 = k
        .ok(&["get", "widgets.v1.example.com", "-o", "jsonpath={range .items[*]}{.apiVersion} {.spec.hostPort};{end}"])
        .await;
    assert_eq!(v1, "example.com/v1 cache:6379;example.com/v1 db:5432;");
    let v2 = k
        .ok(&[
            "get",
            "widgets.v2.example.com",
            "-o",
            "jsonpath={range .items[*]}{.apiVersion} {.spec.host} {.spec.port};{end}",
        ])
        .await;
    assert_eq!(v2, "example.com/v2 cache 6379;example.com/v2 db 5432;");
    let one = k.ok(&["get", "widgets.v2.example.com", "old", "-o", "jsonpath={.spec.host}:{.spec.port}"]).await;
    assert_eq!(one, "db:5432");
    let table = k.ok(&["get", "widgets.v2.example.com"]).await;
    assert!(table.lines().count() == 3 && table.contains("old") && table.contains("new"), "{table}");
    assert!(k.ok(&["delete", "widgets.v2.example.com", "old"]).await.contains(r#""old" deleted"#));
    assert!(hook.reviews() > 0);
}

/// The built-in kinds through kubectl (issue 21): `create namespace`, `get
/// ns`, applying into a namespace just created (Helm's
/// `--create-namespace`), `get leases` and `get events`, and `delete
/// namespace` removing everything in it.
#[tokio::test]
async fn kubectl_manages_namespaces_leases_and_events() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    k.ok(&["apply", "-f", &k.file("crd.yaml", DEFINITION)]).await;
    k.ok(&["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=20s"]).await;
    assert!(k.ok(&["create", "namespace", "team"]).await.contains("namespace/team created"));
    let table = k.ok(&["get", "ns"]).await;
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "STATUS", "AGE"], "{table}");
    let names: Vec<&str> = table.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(names, ["default", "kube-node-lease", "kube-public", "kube-system", "team"], "{table}");
    assert!(table.lines().any(|l| l.starts_with("team") && l.contains("Active")), "{table}");

    // --create-namespace: the namespace made, then content applied into it.
    let manifest = k.file("ns.yaml", &k.ok(&["create", "namespace", "app", "--dry-run=client", "-o", "yaml"]).await);
    k.ok(&["apply", "-f", &manifest]).await;
    k.ok(&["apply", "-n", "app", "-f", &k.file("widget.yaml", WIDGET)]).await;
    let lease = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: leader}\nspec: {holderIdentity: op-1, leaseDurationSeconds: 15}\n";
    k.ok(&["apply", "-n", "app", "-f", &k.file("lease.yaml", lease)]).await;
    let event = "apiVersion: v1\nkind: Event\nmetadata: {name: made}\ninvolvedObject: {kind: Widget, name: w1, namespace: app}\nreason: Created\nmessage: widget made\ntype: Normal\n";
    k.ok(&["apply", "-n", "app", "-f", &k.file("event.yaml", event)]).await;
    let leases = k.ok(&["get", "leases", "-n", "app"]).await;
    let row: Vec<&str> = leases.lines().nth(1).unwrap_or_default().split_whitespace().collect();
    assert_eq!(row[..2], ["leader", "op-1"], "{leases}");
    let events = k.ok(&["get", "events", "-n", "app"]).await;
    assert!(events.contains("Created") && events.contains("widget made"), "{events}");

    assert!(k.ok(&["delete", "namespace", "app", "--timeout=30s"]).await.contains(r#"namespace "app" deleted"#));
    let (ok, _, stderr) = k.run(&["get", "ns", "app"]).await;
    assert!(!ok && stderr.contains(r#"namespaces "app" not found"#), "{stderr}");
    for kind in ["widgets", "leases", "events"] {
        let (_, stdout, stderr) = k.run(&["get", kind, "-n", "app"]).await;
        assert!(format!("{stdout}{stderr}").contains("No resources found"), "{kind}: {stdout}{stderr}");
    }
    assert!(k.ok(&["get", "ns", "team", "-o", "name"]).await.contains("namespace/team"));
}

const OWNERS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: parents.gc.example.com}
spec:
  group: gc.example.com
  scope: Namespaced
  names: {plural: parents, singular: parent, kind: Parent}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: kids.gc.example.com}
spec:
  group: gc.example.com
  scope: Namespaced
  names: {plural: kids, singular: kid, kind: Kid}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
"#;

/// A parent and its kid (with `blockOwnerDeletion`), created with kubectl.
async fn family(k: &Kubectl, n: usize) {
    let parent = k.file(
        &format!("p{n}.yaml"),
        &format!("apiVersion: gc.example.com/v1\nkind: Parent\nmetadata: {{name: p{n}}}\n"),
    );
    k.ok(&["apply", "-f", &parent]).await;
    let uid = k.ok(&["get", "parent", &format!("p{n}"), "-o", "jsonpath={.metadata.uid}"]).await;
    let kid = format!(
        "apiVersion: gc.example.com/v1\nkind: Kid\nmetadata:\n  name: k{n}\n  ownerReferences:\n  - {{apiVersion: gc.example.com/v1, kind: Parent, name: p{n}, uid: {uid}, blockOwnerDeletion: true}}\n"
    );
    let kid = k.file(&format!("k{n}.yaml"), &kid);
    k.ok(&["apply", "-f", &kid]).await;
}

/// Waits until `kubectl get kid <name>` finds nothing.
async fn kid_gone(k: &Kubectl, name: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (ok, _, stderr) = k.run(&["get", "kid", name]).await;
        if !ok {
            assert!(stderr.contains("NotFound") || stderr.contains("not found"), "{stderr}");
            return;
        }
        assert!(std::time::Instant::now() < deadline, "kid {name} was never collected");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `kubectl delete --cascade=foreground|orphan|background` against the
/// collector.
#[tokio::test]
async fn kubectl_delete_cascades_as_asked() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let crds = k.file("crds.yaml", OWNERS);
    k.ok(&["apply", "-f", &crds]).await;
    k.ok(&["wait", "--for", "condition=established", "crd/parents.gc.example.com", "crd/kids.gc.example.com"]).await;
    for n in 1..=3 {
        family(&k, n).await;
    }
    // Foreground: kubectl waits for the parent, which goes after its kid.
    let out = k.ok(&["delete", "parent", "p1", "--cascade=foreground", "--timeout=30s"]).await;
    assert!(out.contains(r#"parent.gc.example.com "p1" deleted"#), "{out}");
    kid_gone(&k, "k1").await;
    // Orphan: the kid stays, without its owner reference.
    k.ok(&["delete", "parent", "p2", "--cascade=orphan", "--timeout=30s"]).await;
    let owners = k.ok(&["get", "kid", "k2", "-o", "jsonpath={.metadata.ownerReferences}"]).await;
    assert_eq!(owners, "", "the kid was orphaned");
    // The default (background): the parent goes at once, the kid after.
    k.ok(&["delete", "parent", "p3"]).await;
    kid_gone(&k, "k3").await;
    assert!(k.ok(&["get", "kids", "-o", "name"]).await.trim() == "kid.gc.example.com/k2");
}

/// `kubectl get events` as kubectl shows it against Kubernetes (issue 21):
/// an event a recorder wrote through events.k8s.io/v1 appears in the
/// core/v1 table, with upstream's columns (no NAME), the object as
/// `kind/name`; events.k8s.io's own table is the same.
#[tokio::test]
async fn kubectl_get_events_shows_events_written_through_events_k8s_io() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S.000000Z").to_string();
    let event = format!(
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {{name: scaled}}\neventTime: \"{now}\"\nreportingController: example.com/operator\nreportingInstance: operator-1\naction: Reconcile\nreason: Scaled\nnote: scaled to three\ntype: Warning\nregarding: {{kind: Parent, namespace: default, name: p}}\n"
    );
    assert!(k
        .ok(&["create", "-f", &k.file("event.yaml", &event)])
        .await
        .contains("event.events.k8s.io/scaled created"));
    for resource in ["events", "events.v1.events.k8s.io"] {
        let table = k.ok(&["get", resource, "-n", "default"]).await;
        let mut lines = table.lines();
        let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        assert_eq!(header, ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], "{resource}: {table}");
        let row: Vec<&str> = lines.next().unwrap_or_default().split_whitespace().collect();
        assert_eq!(row[1..], ["Warning", "Scaled", "parent/p", "scaled", "to", "three"], "{resource}: {table}");
    }
    let wide = k.ok(&["get", "events", "-n", "default", "-o", "wide"]).await;
    let header: Vec<&str> = wide.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header[header.len() - 4..], ["FIRST", "SEEN", "COUNT", "NAME"], "{wide}");
    assert!(wide.contains("example.com/operator, operator-1"), "{wide}");
    assert!(k.ok(&["get", "ns", "default", "-o", "name"]).await.contains("namespace/default"));
}

const APPLIED: &str =
    "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: s1}\nspec: {replicas: 2, color: blue}\n";
const APPLIED_RED: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: s1}\nspec: {color: red}\n";
const APPLIED_REPLICAS: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: s1}\nspec: {replicas: 3}\n";

/// `kubectl apply --server-side` (issue 20): a definition, then an object
/// by two managers with a conflict, `--force-conflicts`, a field removed by
/// omitting it, managedFields shown on request, and a client-side apply
/// upgraded to server-side.
#[tokio::test]
async fn kubectl_applies_server_side() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let crd = k.file("crd.yaml", DEFINITION);
    let out = k.ok(&["apply", "--server-side", "-f", &crd]).await;
    assert!(
        out.contains("customresourcedefinition.apiextensions.k8s.io/widgets.example.com serverside-applied"),
        "{out}"
    );
    k.ok(&["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=20s"]).await;
    let again = k.ok(&["apply", "--server-side", "-f", &crd]).await;
    assert!(again.contains("serverside-applied"), "{again}");

    let first = k.file("s1.yaml", APPLIED);
    k.ok(&["apply", "--server-side", "--field-manager=alice", "-f", &first]).await;
    let red = k.file("red.yaml", APPLIED_RED);
    let (ok, _, stderr) = k.run(&["apply", "--server-side", "--field-manager=bob", "-f", &red]).await;
    assert!(!ok, "a conflict fails");
    assert!(stderr.contains("conflict with \"alice\"") && stderr.contains(".spec.color"), "{stderr}");
    k.ok(&["apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", &red]).await;
    let fields = k.ok(&["get", "widget", "s1", "-o", "jsonpath={.spec.replicas} {.spec.color}"]).await;
    assert_eq!(fields, "2 red");

    // alice stops applying color (bob owns it now) and replicas' value changes.
    let replicas = k.file("replicas.yaml", APPLIED_REPLICAS);
    k.ok(&["apply", "--server-side", "--field-manager=alice", "-f", &replicas]).await;
    // bob omits color: nobody owns it any more, so it goes.
    let empty = k.file("empty.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: s1}\n");
    k.ok(&["apply", "--server-side", "--field-manager=bob", "-f", &empty]).await;
    let spec = k.ok(&["get", "widget", "s1", "-o", "jsonpath={.spec}"]).await;
    assert_eq!(spec, r#"{"replicas":3}"#);

    let hidden = k.ok(&["get", "widget", "s1", "-o", "yaml"]).await;
    assert!(!hidden.contains("managedFields"), "kubectl hides them by default: {hidden}");
    let shown = k.ok(&["get", "widget", "s1", "-o", "yaml", "--show-managed-fields"]).await;
    assert!(shown.contains("managedFields") && shown.contains("manager: alice"), "{shown}");

    // A client-side apply, then a server-side one: kubectl upgrades the
    // client-side manager so the server-side apply owns the fields.
    let csa = k.file(
        "c1.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: c1}\nspec: {replicas: 1, color: green}\n",
    );
    k.ok(&["apply", "-f", &csa]).await;
    let managers = k
        .ok(&["get", "widget", "c1", "-o", "jsonpath={.metadata.managedFields[*].manager}", "--show-managed-fields"])
        .await;
    assert_eq!(managers, "kubectl-client-side-apply");
    let ssa =
        k.file("c1b.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: c1}\nspec: {replicas: 1}\n");
    k.ok(&["apply", "--server-side", "-f", &ssa]).await;
    let spec = k.ok(&["get", "widget", "c1", "-o", "jsonpath={.spec}"]).await;
    assert_eq!(spec, r#"{"replicas":1}"#, "the upgraded manager's omitted field goes");
    k.ok(&["get", "widgets"]).await;
}

/// A client-side `kubectl apply`, a server-side one without
/// `--force-conflicts`, then a client-side one again (issue 20): the
/// server keeps the last-applied annotation in step with the server-side
/// apply, so the last client-side apply removes what it no longer names.
#[tokio::test]
async fn kubectl_switches_between_client_and_server_side_apply() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let crd = k.file("crd.yaml", DEFINITION);
    k.ok(&["apply", "--server-side", "-f", &crd]).await;
    k.ok(&["wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=20s"]).await;
    let widget =
        |spec: &str| format!("apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: m1}}\nspec: {spec}\n");
    let csa = k.file("m1.yaml", &widget("{replicas: 1}"));
    k.ok(&["apply", "-f", &csa]).await;
    let ssa = k.file("m1-ssa.yaml", &widget("{replicas: 2, color: blue}"));
    k.ok(&["apply", "--server-side", "-f", &ssa]).await;
    let last = k
        .ok(&[
            "get",
            "widget",
            "m1",
            "-o",
            r"jsonpath={.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}",
        ])
        .await;
    assert!(last.contains(r#""color":"blue""#) && last.contains(r#""replicas":2"#), "{last}");
    let csa = k.file("m1-again.yaml", &widget("{replicas: 3}"));
    k.ok(&["apply", "-f", &csa]).await;
    let spec = k.ok(&["get", "widget", "m1", "-o", "jsonpath={.spec}"]).await;
    assert_eq!(spec, r#"{"replicas":3}"#, "color, last applied server-side, goes");
    k.ok(&["get", "widgets"]).await;
}

/// kubectl's strategic merge patches of built-in kinds: a second
/// client-side apply, `kubectl patch` (strategic by default) and `kubectl
/// edit`, of a namespace and a lease.
#[tokio::test]
async fn kubectl_patches_built_in_kinds_strategically() {
    let server = TestServer::start().await;
    let k = Kubectl::new(&server);
    let ns =
        |label: &str| format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: team, labels: {{tier: {label}}}}}\n");
    k.ok(&["apply", "-f", &k.file("ns.yaml", &ns("silver"))]).await;
    let applied = k.ok(&["apply", "-f", &k.file("ns.yaml", &ns("gold"))]).await;
    assert!(applied.contains("namespace/team configured"), "{applied}");
    assert_eq!(k.ok(&["get", "ns", "team", "-o", "jsonpath={.metadata.labels.tier}"]).await, "gold");

    let patched = k.ok(&["patch", "ns", "team", "-p", r#"{"metadata":{"labels":{"owner":"ops"}}}"#]).await;
    assert!(patched.contains("namespace/team patched"), "{patched}");
    let labels = k.ok(&["get", "ns", "team", "-o", "jsonpath={.metadata.labels}"]).await;
    assert!(labels.contains(r#""owner":"ops""#) && labels.contains(r#""tier":"gold""#), "{labels}");

    // `kubectl edit`, with an editor that changes the label in the file.
    let editor = k.file("editor.sh", "#!/bin/sh\nsed -i 's/owner: ops/owner: dev/' \"$1\"\n");
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut edit = k.command(&["edit", "ns", "team"]);
    let out = edit.env("KUBE_EDITOR", &editor).output().await.unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.contains("namespace/team edited"), "{said}");
    assert_eq!(k.ok(&["get", "ns", "team", "-o", "jsonpath={.metadata.labels.owner}"]).await, "dev");

    let lease =
        "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: leader}\nspec: {holderIdentity: op-1}\n";
    k.ok(&["apply", "-n", "team", "-f", &k.file("lease.yaml", lease)]).await;
    k.ok(&["patch", "lease", "leader", "-n", "team", "-p", r#"{"spec":{"holderIdentity":"op-2"}}"#]).await;
    assert_eq!(k.ok(&["get", "lease", "leader", "-n", "team", "-o", "jsonpath={.spec.holderIdentity}"]).await, "op-2");
}
