//! Reads arbitrary bytes as an event record of a class with scalars, references, a string and a
//! byte blob: never panics, and a record read whole writes back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netschema_runtime::event::{self, MAX_EVENT_LEN};
use netschema_runtime::schema::{Class, Field, Link, TextField};

const FIELDS: [Field; 3] = [
    Field::categorical("kind", 4),
    Field::numeric("dx", -100, 100, false, &[]),
    Field::numeric("depth", -50, -10, false, &[]),
];
const LINKS: [Link; 2] = [Link::new("who", None), Link::new("by", None)];
const TEXTS: [TextField; 2] = [TextField::string("text", 64), TextField::bytes("sig", 130)];
const SAID: Class = Class::new("Said", &FIELDS).with_links(&LINKS).with_texts(&TEXTS);

fuzz_target!(|data: &[u8]| {
    let (mut raw, mut links, mut texts) = ([0; 3], [None; 2], [&[][..]; 2]);
    let Ok(index) = event::read(&SAID, data, &mut raw, &mut links, &mut texts) else { return };
    assert!(core::str::from_utf8(texts[0]).is_ok() && texts[0].len() <= 64);
    let mut buf = [0u8; MAX_EVENT_LEN];
    let n = event::write(index, &SAID, &raw, &links, &texts, &mut buf).unwrap();
    // Varints may be written longer than needed on the wire; the writer's are the shortest.
    assert!(n <= data.len());
    let (mut again, mut links_again, mut texts_again) = ([0; 3], [None; 2], [&[][..]; 2]);
    let read = event::read(&SAID, &buf[..n], &mut again, &mut links_again, &mut texts_again);
    assert_eq!(read, Ok(index));
    assert_eq!((again, links_again, texts_again), (raw, links, texts));
});
