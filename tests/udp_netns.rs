//! The UDP example under the kernel's own packet loss: a network namespace of its own, its
//! loopback impaired with `tc netem` (5 % loss, 50 ms ± 10 ms delay, reordering, duplication,
//! corruption), a server and client processes of `examples/udp` run in it with `ip netns
//! exec`, one client killed and replaced, one of another schema refused; every client's bot
//! sends its inputs, which steer its pilot on the server, and fires shots the server judges on
//! the world as that client showed it. Bounded: a few
//! seconds, 200 ships, namespace-local addresses only; the namespace and the processes go
//! away even when the test fails.
//!
//! Where the kernel has no netem (`Specified qdisc kind is unknown`), the kernel's packet
//! filter drops 5 % and duplicates 1 % of the datagrams (nftables, `numgen random`), and the
//! processes' own seeded shim adds the delay, jitter, reordering and corruption netem would.
//!
//! It needs root, `ip` and `tc` (and `nft` without netem), and the example built: `cargo
//! test` builds it beside the tests, or set `NETSCHEMA_UDP_EXAMPLE` to the binary. Without
//! them it skips and says why; with `NETSCHEMA_REQUIRE_NETNS=1` (as CI sets it) it fails
//! instead.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

const NETEM: &str = "loss 5% delay 50ms 10ms reorder 25% 50% duplicate 1% corrupt 1%";
/// What the shim adds when the kernel drops and duplicates but cannot delay or damage.
const SHIM: [&str; 8] = ["--delay", "50", "--jitter", "10", "--reorder", "10%", "--corrupt", "1%"];
const NFT_RULES: &str = "table ip impair {
    chain out {
        type filter hook output priority 0; policy accept;
        meta l4proto udp numgen random mod 1000 < 50 drop
        meta l4proto udp numgen random mod 1000 < 10 dup to 127.0.0.1 device \"lo\"
    }
}";

/// Runs a command to its end; its output, or why it could not start.
fn run(program: &str, args: &[&str]) -> Result<Output, String> {
    Command::new(program).args(args).output().map_err(|e| format!("{program}: {e}"))
}

/// Runs a command that must succeed.
fn must(program: &str, args: &[&str]) {
    let out = run(program, args).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{program} {}: {err}", args.join(" "));
}

/// A network namespace, deleted when dropped.
struct Namespace(String);

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = run("ip", &["netns", "del", &self.0]);
    }
}

/// Processes killed when dropped, so that none outlives a failed test.
#[derive(Default)]
struct Processes(Vec<Child>);

impl Drop for Processes {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Why this test cannot run here, if it cannot.
fn missing() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status.lines().find_map(|l| l.strip_prefix("Uid:")).map(str::split_whitespace);
    if uid.and_then(|mut u| u.nth(1)) != Some("0") {
        return Some("not root: network namespaces and tc need it".into());
    }
    for tool in ["ip", "tc"] {
        if run(tool, &["-V"]).is_err() {
            return Some(format!("`{tool}` is missing (Debian: apt-get install iproute2)"));
        }
    }
    example().is_none().then(|| {
        "the example is not built: `cargo test` builds it, or `cargo build --example udp` and \
         NETSCHEMA_UDP_EXAMPLE=target/debug/examples/udp"
            .into()
    })
}

/// The example's binary: `NETSCHEMA_UDP_EXAMPLE`, or the one built beside this test.
fn example() -> Option<PathBuf> {
    let path = match std::env::var_os("NETSCHEMA_UDP_EXAMPLE") {
        Some(path) => PathBuf::from(path),
        None => std::env::current_exe().ok()?.parent()?.parent()?.join("examples/udp"),
    };
    path.is_file().then_some(path)
}

/// Skips the test, saying why, unless `NETSCHEMA_REQUIRE_NETNS` is set: then it fails.
fn skip(why: &str) {
    assert!(std::env::var_os("NETSCHEMA_REQUIRE_NETNS").is_none(), "cannot run: {why}");
    println!("skipped: {why}");
}

/// The number just before `word` in `line` ("12 verified" → 12).
fn count(line: &str, word: &str) -> Option<f64> {
    let at = line.find(word)?;
    line[..at].split_whitespace().last()?.parse().ok()
}

#[test]
fn the_udp_example_survives_kernel_packet_loss() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let bin = example().unwrap();
    let ns = Namespace(format!("netschema-udp-{}", std::process::id()));
    must("ip", &["netns", "add", &ns.0]);
    must("ip", &["-n", &ns.0, "link", "set", "lo", "up"]);
    let mut netem = vec!["-n", &ns.0, "qdisc", "add", "dev", "lo", "root", "netem"];
    netem.extend(NETEM.split(' '));
    let shim: &[&str] = match run("tc", &netem) {
        Ok(out) if out.status.success() => {
            println!("loopback of {}: netem {NETEM}", ns.0);
            &[]
        }
        Ok(out) if String::from_utf8_lossy(&out.stderr).contains("unknown") => {
            if run("nft", &["--version"]).is_err() {
                return skip(
                    "this kernel has no netem, and `nft` is missing to drop packets instead \
                     (Debian: apt-get install nftables)",
                );
            }
            println!(
                "this kernel has no netem: nftables drops 5 % and duplicates 1 %, the shim adds {SHIM:?}"
            );
            let mut nft = Command::new("ip")
                .args(["netns", "exec", &ns.0, "nft", "-f", "-"])
                .stdin(Stdio::piped())
                .spawn()
                .unwrap();
            std::io::Write::write_all(&mut nft.stdin.take().unwrap(), NFT_RULES.as_bytes())
                .unwrap();
            assert!(nft.wait().unwrap().success(), "nft refused the rules");
            &SHIM
        }
        other => panic!("tc netem: {other:?}"),
    };

    let bin = bin.to_str().unwrap();
    let spawn = |role: &str, args: &[&str]| {
        let mut all = vec!["netns", "exec", &ns.0, bin, role, "--addr", "127.0.0.1:40000"];
        all.extend(args.iter().chain(shim));
        let command =
            Command::new("ip").args(&all).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
        command.unwrap()
    };
    let mut processes = Processes::default();
    processes
        .0
        .push(spawn("server", &["--seconds", "7", "--ships", "200", "--encode", "alternate"]));
    sleep(Duration::from_millis(300));
    for seconds in ["5", "5", "5"] {
        processes.0.push(spawn("client", &["--seconds", seconds, "--timeout", "1"]));
    }
    processes.0.push(spawn("client", &["--seconds", "3", "--next-version"]));
    sleep(Duration::from_millis(2000));
    let mut killed = processes.0.remove(1);
    killed.kill().unwrap();
    // Its id, from the report it printed after its first second.
    let said = String::from_utf8_lossy(&killed.wait_with_output().unwrap().stdout).into_owned();
    let id = said.split("client ").nth(1).and_then(|s| s.split(':').next()).map(str::to_owned);
    let killed = id.unwrap_or_else(|| panic!("the client to kill said nothing: {said}"));
    processes.0.push(spawn("client", &["--seconds", "4", "--timeout", "1"]));

    // Everything stops by itself within seconds; past the deadline the guards kill it.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut outputs = Vec::new();
    while !processes.0.is_empty() {
        while processes.0[0].try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "a process ran past its time");
            sleep(Duration::from_millis(50));
        }
        let output = processes.0.remove(0).wait_with_output().unwrap();
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        let (out, err) = (text(&output.stdout), text(&output.stderr));
        println!("{out}{err}");
        outputs.push((output.status.success(), out, err));
    }
    let [server, first, second, refused, replacement] = &outputs[..] else { unreachable!() };
    assert!(server.0, "the server failed: {}", server.2);
    assert!(server.1.contains(&format!("player {killed} joined")), "{killed} never joined");
    let left = format!("player {killed} (");
    let gone = server.1.lines().find(|l| l.starts_with(&left)).unwrap_or_default();
    assert!(gone.ends_with("left: timed out"), "{killed} was not timed out: {gone}");
    assert!(server.1.contains("refused: peer uses a different schema"));
    assert!(!refused.0 && refused.2.contains("different schema"), "{refused:?}");
    let done = server.1.lines().find(|l| l.starts_with("done:")).unwrap();
    assert!(count(done, "applied").unwrap() >= 600.0, "{done}");
    assert!(count(done, "judged as seen").unwrap() >= 3.0, "{done}");
    for (ok, out, err) in [first, second, replacement] {
        // A client succeeds only if it verified frames and none failed.
        assert!(ok, "a client failed: {out}{err}");
        let done = out.lines().find(|l| l.starts_with("done:")).unwrap();
        assert!(count(done, "verified").unwrap() >= 60.0, "{done}");
        assert_eq!(count(done, "wrong"), Some(0.0), "{done}");
        let loss = done.split("loss seen ").nth(1).and_then(|l| l.split('%').next()?.parse().ok());
        assert!(loss.is_some_and(|l: f64| l > 0.0 && l < 30.0), "{done}");
        // Its inputs went out every tick and its own pilot moved as they steered it.
        assert!(count(done, "sent,").unwrap() >= 150.0, "{done}");
        assert!(count(done, "own moves").unwrap() >= 60.0, "{done}");
    }
}
