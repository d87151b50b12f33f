//! Finding bytes in text eight at a time: most of a JSON document's bytes are inside strings,
//! where the only bytes that matter are a few (`"`, `\`, control characters), so reading a
//! whole machine word per step, as a `u64`, beats looking at each byte. Used to locate
//! findings in a file's text ([`crate::locate`]) and to escape strings in written lines
//! ([`crate::report::compact`]).

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `w` below `n` (`n` at most 0x80), exactly up to the first
/// such byte: in `w - n·0x0101…`, a byte below `n` borrows into its own high bit, and `& !w`
/// keeps only bytes whose high bit was clear; a borrow only reaches the bytes after a true
/// hit. So the lowest bit set, of this or of several of them or-ed, marks the first hit (the
/// word is read little-endian).
pub fn below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH
}

/// The high bit of every byte of `w` equal to `c`, as [`below`] marks them: a byte equal to
/// `c` is a zero byte of `w ^ c·0x0101…`.
pub fn equal(w: u64, c: u8) -> u64 {
    below(w ^ (ONES * u64::from(c)), 1)
}

/// The first byte at or after `from` that `byte` accepts, eight bytes at a time through `word`
/// (which marks them as [`equal`] does).
///
/// Most strings are a word and a few bytes long, or shorter, and a step per byte made their
/// ends cost more than their words, so the last few bytes are read as one word too: after at
/// least one whole word, as the text's last word, whose lanes before them were already found
/// clean, so its first hit is among them; four to seven bytes as their first four and their
/// last four, overlapping, whose lowest hit is the first either way. Fewer are read one by
/// one.
pub fn first_where(
    b: &[u8],
    from: usize,
    word: impl Fn(u64) -> u64,
    byte: impl Fn(u8) -> bool,
) -> Option<usize> {
    let mut i = from;
    let mut rest = b.get(from..)?;
    while let Some((w, after)) = rest.split_first_chunk::<8>() {
        let hits = word(u64::from_le_bytes(*w));
        if hits != 0 {
            return Some(i + lane(hits));
        }
        i += 8;
        rest = after;
    }
    if rest.is_empty() {
        return None;
    }
    if i > from {
        if let Some(last) = b.last_chunk::<8>() {
            let hits = word(u64::from_le_bytes(*last));
            return (hits != 0).then(|| b.len() - 8 + lane(hits));
        }
    }
    if let (Some(head), Some(tail)) = (rest.first_chunk::<4>(), rest.last_chunk::<4>()) {
        let w = u64::from(u32::from_le_bytes(*head)) | u64::from(u32::from_le_bytes(*tail)) << 32;
        let hits = word(w);
        // Lanes 4 to 7 are the last four bytes: lane 4 is `rest.len() - 4`.
        return (hits != 0).then(|| match lane(hits) {
            l @ 0..4 => i + l,
            l => i + l + rest.len() - 8,
        });
    }
    while let Some(&c) = b.get(i) {
        if byte(c) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The byte of the lowest hit of a non-zero word of hits.
fn lane(hits: u64) -> usize {
    (hits.trailing_zeros() / 8) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first byte `byte` accepts, one by one: the oracle.
    fn slow(b: &[u8], from: usize, byte: impl Fn(u8) -> bool) -> Option<usize> {
        b.iter()
            .enumerate()
            .skip(from)
            .find(|(_, &c)| byte(c))
            .map(|(i, _)| i)
    }

    #[test]
    fn the_first_hit_is_found_at_every_offset_from_every_start() {
        let escape = |c: u8| c < 0x20 || c == b'"' || c == b'\\';
        let word = |w: u64| below(w, 0x20) | equal(w, b'"') | equal(w, b'\\');
        // Neighbours a borrow could mark falsely: a space (0x20 = 0x1f + 1), `#` (`"` + 1),
        // `]` (`\` + 1), and bytes with the high bit set.
        let fill = [b'a', b' ', b'#', b']', 0xc3, 0xa9];
        for len in 0..26 {
            for hit in [None, Some(b'"'), Some(b'\\'), Some(0x00), Some(0x1f)] {
                for at in 0..len.max(1) {
                    let mut b: Vec<u8> = (0..len).map(|i| fill[i % fill.len()]).collect();
                    if let (Some(h), Some(slot)) = (hit, b.get_mut(at)) {
                        *slot = h;
                    }
                    // A second hit before `from` must not be seen, nor borrow.
                    for from in 0..=len {
                        let mut b = b.clone();
                        if from > 0 {
                            if let Some(slot) = b.get_mut(from - 1) {
                                *slot = 0x00;
                            }
                        }
                        assert_eq!(
                            first_where(&b, from, word, escape),
                            slow(&b, from, escape),
                            "{b:?} from {from}"
                        );
                    }
                }
            }
        }
    }
}
