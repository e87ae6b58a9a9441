//! Word-at-a-time helpers of the key codec: finding the first byte below `&` (a separator or a
//! byte to escape), and reading and writing eight decimal digits at once.
//!
//! Words are read little-endian, so the first byte of the text is the lowest byte of the word on
//! every target.

/// `0x0101..01`: one in every byte of a word.
const ONES: u64 = u64::from_le_bytes([0x01; 8]);
/// `0x8080..80`: the high bit of every byte of a word.
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
/// Eight `'0'`s.
const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);

/// Bytes below this one are separators or escaped (`#`, `%`, ...).
pub(super) const FIRST_PLAIN_BYTE: u8 = b'&';

/// Eight bytes as a little-endian word.
#[inline(always)]
fn word(bytes: &[u8; 8]) -> u64 {
    u64::from_le_bytes(*bytes)
}

/// The high bit of every byte of `w` below [`FIRST_PLAIN_BYTE`]. Only the lowest flagged byte is
/// exact (a borrow can flag a byte above it), which is the one the callers use.
#[inline(always)]
fn below_plain(w: u64) -> u64 {
    w.wrapping_sub(ONES * FIRST_PLAIN_BYTE as u64) & !w & HIGHS
}

/// The index of the first byte of `bytes` from `from` on that is below [`FIRST_PLAIN_BYTE`].
#[inline]
pub(super) fn find_below_plain(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let m = below_plain(word(chunk));
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let len = bytes.len();
    if at >= len {
        return None;
    }
    match bytes.last_chunk::<8>() {
        Some(last) => {
            // The last eight bytes, the 1 to 7 before `at` (read already, or before `from`) made
            // 0xff: never flagged, and never borrowing from the bytes above.
            let before = at - (len - 8);
            let m = below_plain(word(last) | ((1u64 << (8 * before)) - 1));
            (m != 0).then(|| len - 8 + (m.trailing_zeros() / 8) as usize)
        }
        None => bytes.get(at..)?.iter().position(|&b| b < FIRST_PLAIN_BYTE).map(|i| at + i),
    }
}

/// The value of eight ASCII decimal digits read as a little-endian word, or `None` if one of the
/// bytes is not a digit.
#[inline(always)]
fn digits8(w: u64) -> Option<u64> {
    const NIBBLES: u64 = u64::from_le_bytes([0xf0; 8]);
    // Every byte is 0x30..=0x3f, and stays below 0x40 with 6 added: `0`..=`9`.
    if w & NIBBLES != ZEROS || w.wrapping_add(ONES * 6) & NIBBLES != ZEROS {
        return None;
    }
    let v = w & !NIBBLES;
    // Pairs, then quadruples, then all eight (each step: higher part * 10^k + lower part).
    let v = (v.wrapping_mul(10 << 8 | 1) >> 8) & 0x00ff_00ff_00ff_00ff;
    let v = (v.wrapping_mul(100 << 16 | 1) >> 16) & 0x0000_ffff_0000_ffff;
    Some(v.wrapping_mul(10_000 << 32 | 1) >> 32)
}

/// Powers of ten up to 10^8.
const POW10: [u64; 9] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// The value of `bytes`, 8 to 19 ASCII decimal digits (which cannot overflow a `u64`), or `None`
/// if one is not a digit or there are fewer than 8 or more than 19.
#[inline]
pub(super) fn read_digits(bytes: &[u8]) -> Option<u64> {
    let len = bytes.len();
    let (Some(first), Some(last)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) else {
        return None;
    };
    if len > 19 {
        return None;
    }
    let mut v = digits8(word(first))?;
    let mut read = 8;
    if len >= 16 {
        let second = bytes.get(8..16).and_then(|b| b.first_chunk::<8>())?;
        v = v * POW10[8] + digits8(word(second))?;
        read = 16;
    }
    let rest = len - read;
    if rest > 0 {
        // The last eight bytes, with those already read replaced by zeros.
        let seen = 8 - rest;
        let mask = (1u64 << (8 * seen)) - 1;
        let w = (word(last) & !mask) | (ZEROS & mask);
        v = v * POW10[rest] + digits8(w)?;
    }
    Some(v)
}

/// The eight decimal digits of `v` (below 10^8, zero-padded) as a little-endian word of ASCII.
#[inline(always)]
pub(super) fn format8(v: u32) -> [u8; 8] {
    // Two halves of four digits (the first in the low half), each split into two pairs, each pair
    // into two digits, all lanes at once: `x / 100 == x * 10486 >> 20` for x < 10^4, and
    // `x / 10 == x * 103 >> 10` for x < 100; no product crosses into the next lane.
    let v = u64::from(v / 10_000) | (u64::from(v % 10_000) << 32);
    let hundreds = ((v * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let v = hundreds | ((v - hundreds * 100) << 16);
    let tens = ((v * 103) >> 10) & 0x000f_000f_000f_000f;
    let v = tens | ((v - tens * 10) << 8);
    (v | ZEROS).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_below_plain_finds_the_first_byte_below_ampersand() {
        for len in 0..40 {
            for at in 0..len {
                for b in [b'#', b'%', b'\0', b'$', b' '] {
                    let mut text = vec![b'a'; len];
                    // Bytes above it never count, even ones that make a borrow.
                    text[at] = b;
                    if at + 1 < len {
                        text[at + 1] = b'\0';
                    }
                    for from in 0..=at {
                        assert_eq!(find_below_plain(&text, from), Some(at), "{len} {at} {b} {from}");
                    }
                    assert_eq!(find_below_plain(&text, len), None);
                }
            }
            // Bytes before `from` are not looked at, whatever they are.
            for from in 0..=len {
                let mut text = vec![b'a'; len];
                text[..from].fill(b'#');
                assert_eq!(find_below_plain(&text, from), None, "{len} {from}");
                if from < len {
                    text[len - 1] = b'%';
                    assert_eq!(find_below_plain(&text, from), Some(len - 1), "{len} {from}");
                }
            }
            let plain: Vec<u8> = (0..len).map(|i| [b'&', 0xff, 0x80, b'z', 0xc3][i % 5]).collect();
            for from in 0..=len {
                assert_eq!(find_below_plain(&plain, from), None);
            }
        }
    }

    #[test]
    fn read_digits_reads_8_to_19_digits_only() {
        for len in 8..=19 {
            let text = "9876543210123456789".get(..len).unwrap();
            assert_eq!(read_digits(text.as_bytes()), text.parse().ok(), "{text}");
            for at in 0..len {
                for bad in [b'/', b':', b'a', b' ', 0xff, 0x06, b'#', 0x3f, 0x40] {
                    let mut bytes = text.as_bytes().to_vec();
                    bytes[at] = bad;
                    assert_eq!(read_digits(&bytes), None, "{bytes:?}");
                }
            }
        }
        assert_eq!(read_digits(b"1234567"), None);
        assert_eq!(read_digits(b"12345678901234567890"), None);
        assert_eq!(read_digits(b"0000000000000"), Some(0));
        assert_eq!(read_digits(b"9999999999999999999"), Some(9_999_999_999_999_999_999));
    }

    #[test]
    fn format8_writes_eight_digits() {
        for v in (0..100_000_000).step_by(9_973).chain([0, 1, 9, 10, 99, 100, 9_999, 10_000, 99_999_999]) {
            assert_eq!(format8(v), *format!("{v:08}").as_bytes(), "{v}");
        }
    }
}
