//! A short `examples/versus` (its harness, shared): a few entities of each scene and two
//! clients, replicated by bevy_replicon's own replication and by netschema-bevy over the same
//! seeded link (one tick of latency, without and with loss). Both show the server's values, as
//! fresh as the link allows, and netschema sends fewer bytes.

#[path = "../examples/versus/harness.rs"]
mod harness;

use std::time::Duration;

use harness::{Config, Scene, run};

#[test]
fn both_modes_replicate_every_scene_and_netschema_sends_less() {
    for scene in [Scene::Ships, Scene::Crowd, Scene::Still] {
        for loss in [0.0, 0.1] {
            let config = Config {
                scene,
                // A still world of a few dozen entities costs netschema more than replicon: it
                // sends a packet every tick, replicon nothing while nothing changes.
                entities: if scene == Scene::Still { 300 } else { 60 },
                clients: 2,
                ticks: 40,
                warmup: 15,
                loss,
                latency: 1,
            };
            let [replicon, netschema] = run(&config);
            for (mode, o) in [("replicon", &replicon), ("netschema", &netschema)] {
                let at = format!("{scene:?}, {mode}, loss {loss}");
                let s = &o.staleness;
                assert_eq!((s.unmatched, o.vanished, o.mismatched), (0, 0, 0), "{at}");
                assert!(o.complete.is_some_and(|tick| tick <= 15), "{at}: {:?}", o.complete);
                if loss == 0.0 {
                    // Every value arrives one tick after the server holds it.
                    assert_eq!(s.max(), 1, "{at}");
                    let mean = s.mean();
                    match scene {
                        Scene::Still => assert!(mean < 0.5, "{at}: {mean}"),
                        Scene::Ships | Scene::Crowd => assert!(mean == 1.0, "{at}: {mean}"),
                    }
                } else {
                    assert!(s.quantile(0.99) <= 6 && s.max() <= 20, "{at}: {s:?}");
                }
                assert!(o.server_heap > 0 && o.client_heap > 0, "{at}: {o:?}");
                assert!(o.server_tick > Duration::ZERO && o.client_tick > Duration::ZERO, "{at}");
            }
            assert!(
                netschema.bytes_per_second < replicon.bytes_per_second,
                "{scene:?}, loss {loss}: netschema {} B/s, replicon {} B/s",
                netschema.bytes_per_second,
                replicon.bytes_per_second
            );
        }
    }
}
