//! `KeyPart` and `PaddedKeyPart` for the integers.
//!
//! Unsigned integers are written in decimal, zero-padded to the number of digits of the type's
//! maximum (`u8` 3, `u16` 5, `u32` 10, `u64` and `usize` 20, `u128` 39), so text order is
//! number order. Signed integers are first mapped to the unsigned type of the same size with
//! the sign bit flipped (`i8::MIN` → 0, `0` → 128, `i8::MAX` → 255), which keeps their order too.
//!
//! With a width (`<field:N>`), the plain non-negative value is zero-padded to exactly `N` digits.

use super::{KeyPart, KeyPartError, PaddedKeyPart, scan};

/// Two-digit decimal strings "00" to "99", back to back.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Digits of `u64::MAX`.
const U64_DIGITS: usize = 20;
/// Digits of `u128::MAX`.
const U128_DIGITS: usize = 39;

/// Writes the decimal digits of `v` at the end of `buf` (which must be filled with `b'0'`) and
/// returns the index of its first significant digit (the last index for 0).
#[inline]
fn fill_u64(mut v: u64, buf: &mut [u8; U64_DIGITS]) -> usize {
    let mut pos = U64_DIGITS;
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        pos -= 2;
        buf[pos..pos + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if v >= 10 {
        let pair = v as usize * 2;
        pos -= 2;
        buf[pos..pos + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        pos -= 1;
        buf[pos] = b'0' + v as u8;
    }
    pos
}

/// [`fill_u64`] for `u128`.
#[inline]
fn fill_u128(mut v: u128, buf: &mut [u8; U128_DIGITS]) -> usize {
    // Peel off 19-digit blocks with u128 divisions, then format each block as a u64.
    const BLOCK: u128 = 10_000_000_000_000_000_000;
    let mut end = U128_DIGITS;
    loop {
        if v <= u128::from(u64::MAX) {
            let mut small = [b'0'; U64_DIGITS];
            let start = fill_u64(v as u64, &mut small);
            let len = U64_DIGITS - start;
            buf[end - len..end].copy_from_slice(&small[start..]);
            return end - len;
        }
        let low = (v % BLOCK) as u64;
        v /= BLOCK;
        let mut small = [b'0'; U64_DIGITS];
        fill_u64(low, &mut small);
        buf[end - 19..end].copy_from_slice(&small[U64_DIGITS - 19..]);
        end -= 19;
    }
}

/// Appends ASCII `digits` to `out`.
#[inline(always)]
fn push_ascii(out: &mut String, digits: &[u8]) {
    // Always ASCII digits here, so this never fails. (Pushing them as chars one by one was
    // measured slower: 1,052 vs 944 instructions per Message key pair.)
    if let Ok(text) = core::str::from_utf8(digits) {
        out.push_str(text);
    }
}

/// 24 ASCII digits, aligned so that `from_utf8` checks the last 16 a word at a time (as it does
/// aligned ASCII): one step instead of a loop over each digit.
#[repr(align(16))]
struct Digits24([u8; 24]);

/// The digits of `v`, zero-padded to 24: three groups of eight written a word at a time.
#[inline]
fn digits24(v: u64) -> Digits24 {
    const E8: u64 = 100_000_000;
    let mut digits = Digits24([b'0'; 24]);
    let buf = &mut digits.0;
    let (high, low) = (v / E8, (v % E8) as u32);
    buf[16..].copy_from_slice(&scan::format8(low));
    if high != 0 {
        let (top, mid) = (high / E8, (high % E8) as u32);
        buf[8..16].copy_from_slice(&scan::format8(mid));
        if top != 0 {
            // `top` is below 1845.
            buf[..8].copy_from_slice(&scan::format8(top as u32));
        }
    }
    digits
}

/// `10^n` for `n` below 20 (the widths a `u64` can overflow).
const POW10: [u64; 20] = {
    let mut table = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// Appends `v` zero-padded to exactly `width` digits (`width` at most 20, and enough for `v`).
#[inline]
fn write_fixed_u64(v: u64, width: usize, out: &mut String) {
    let buf = digits24(v);
    // Always ASCII digits, so this never fails. Checked in one piece, the last 16 when they are
    // enough (measured: 46 instructions for a 13-digit timestamp, against 134 for checking the 13
    // and 150 for pushing them one by one as chars).
    let digits = if width <= 16 { &buf.0[8..] } else { &buf.0[..] };
    if let Ok(text) = core::str::from_utf8(digits) {
        out.push_str(text.get(text.len() - width..).unwrap_or_default());
    }
}

/// The widest padding accepted: a wider component could not fit in any DynamoDB key.
const MAX_PADDED_WIDTH: usize = crate::size::MAX_PARTITION_KEY_BYTES;

/// Appends the `significant` digits zero-padded to `width`, or fails if they are longer (or
/// `width` is wider than any key).
fn write_padded_digits(
    significant: &[u8],
    width: usize,
    out: &mut String,
    value: impl FnOnce() -> String,
) -> Result<(), KeyPartError> {
    if width == UNPADDED {
        push_ascii(out, significant);
        return Ok(());
    }
    if width > MAX_PADDED_WIDTH {
        return Err(KeyPartError::OutOfRange {
            expected: "a zero-padded component of at most 2048 digits (DynamoDB's largest key)",
            value: format!("{} padded to {width} digits", value()),
        });
    }
    let Some(zeros) = width.checked_sub(significant.len()) else {
        return Err(KeyPartError::TooWide { width, value: value() });
    };
    out.reserve(width);
    out.extend(core::iter::repeat_n('0', zeros));
    push_ascii(out, significant);
    Ok(())
}

/// Appends `v` zero-padded to `width` digits, or fails if it has more.
#[inline]
fn write_padded_u64(v: u64, width: usize, out: &mut String) -> Result<(), KeyPartError> {
    if width == UNPADDED {
        let mut buf = [b'0'; U64_DIGITS];
        let start = fill_u64(v, &mut buf);
        push_ascii(out, &buf[start..]);
        return Ok(());
    }
    if width <= U64_DIGITS {
        // Every u64 fits in 20 digits; `v` fits in fewer if it is below 10^width (never in 0).
        if POW10.get(width).is_some_and(|&limit| v >= limit) || width == 0 {
            return Err(too_wide(v, width));
        }
        write_fixed_u64(v, width, out);
        return Ok(());
    }
    write_padded_u64_wide(v, width, out)
}

#[cold]
#[inline(never)]
fn too_wide(v: u64, width: usize) -> KeyPartError {
    KeyPartError::TooWide { width, value: v.to_string() }
}

/// [`write_padded_u64`] wider than any `u64`.
#[cold]
fn write_padded_u64_wide(v: u64, width: usize, out: &mut String) -> Result<(), KeyPartError> {
    let mut buf = [b'0'; U64_DIGITS];
    let start = fill_u64(v, &mut buf);
    write_padded_digits(&buf[start..], width, out, || v.to_string())
}

/// Appends `v` zero-padded to `width` digits, or fails if it has more.
fn write_padded_u128(v: u128, width: usize, out: &mut String) -> Result<(), KeyPartError> {
    let mut buf = [b'0'; U128_DIGITS];
    let start = fill_u128(v, &mut buf);
    write_padded_digits(&buf[start..], width, out, || v.to_string())
}

/// The width that means "no padding" (`<field:unpadded>`): the shortest decimal form.
const UNPADDED: usize = 0;

/// `Some` if `bytes` is an integer's shortest decimal form: 1 to 39 digits, no leading zero
/// (but `0` itself), so that parsing and writing give each other back exactly.
#[inline]
fn unpadded(bytes: &[u8]) -> Option<()> {
    match bytes {
        [] | [b'0', _, ..] => None,
        _ if bytes.len() > U128_DIGITS => None,
        _ => Some(()),
    }
}

/// Reads `text` as exactly `width` ASCII digits; `None` if it is not, or the value overflows.
#[inline]
fn read_u64(text: &str, width: usize) -> Option<u64> {
    let bytes = text.as_bytes();
    if width == UNPADDED {
        return unpadded(bytes).and_then(|_| read_u64(text, bytes.len()));
    }
    if bytes.len() != width || width == 0 {
        return None;
    }
    if (8..=19).contains(&width) {
        return scan::read_digits(bytes);
    }
    let mut v: u64 = 0;
    if width <= 19 {
        // At most 19 digits cannot overflow a u64: no checks in the loop.
        for &b in bytes {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        return Some(v);
    }
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// [`read_u64`] for `u128`.
fn read_u128(text: &str, width: usize) -> Option<u128> {
    let bytes = text.as_bytes();
    if width == UNPADDED {
        return unpadded(bytes).and_then(|_| read_u128(text, bytes.len()));
    }
    if bytes.len() != width || width == 0 {
        return None;
    }
    let mut v: u128 = 0;
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u128::from(d))?;
    }
    Some(v)
}

const NEGATIVE_PADDED: &str = "a zero-padded key component (a padded placeholder takes non-negative numbers only)";

/// Unsigned types of at most 64 bits: formatted through `u64`.
macro_rules! unsigned_via_u64 {
    ($($t:ty => $width:literal),* $(,)?) => {$(
        #[doc = concat!("Written as ", stringify!($width), " zero-padded decimal digits.")]
        impl KeyPart for $t {
            trusted_key_part!();

            #[inline]
            fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
                write_fixed_u64(*self as u64, $width, out);
                Ok(())
            }

            fn parse_key(text: &str) -> Result<Self, KeyPartError> {
                read_u64(text, $width).and_then(|v| <$t>::try_from(v).ok()).ok_or_else(|| {
                    KeyPartError::Invalid {
                        expected: concat!(
                            "the key text of a ",
                            stringify!($t),
                            ": exactly ",
                            stringify!($width),
                            " decimal digits"
                        ),
                        text: text.to_owned(),
                    }
                })
            }
        }

        impl PaddedKeyPart for $t {
            trusted_padded_key_part!();

            #[inline]
            fn write_key_padded(&self, width: usize, out: &mut String) -> Result<(), KeyPartError> {
                write_padded_u64(*self as u64, width, out)
            }

            fn parse_key_padded(text: &str, width: usize) -> Result<Self, KeyPartError> {
                read_u64(text, width).and_then(|v| <$t>::try_from(v).ok()).ok_or_else(|| {
                    KeyPartError::Invalid {
                        expected: concat!(
                            "a ",
                            stringify!($t),
                            " zero-padded to the width of its placeholder"
                        ),
                        text: text.to_owned(),
                    }
                })
            }
        }
    )*};
}

/// Signed types of at most 64 bits: sign bit flipped, then formatted as the unsigned type.
macro_rules! signed_via_u64 {
    ($($t:ty => $u:ty, $width:literal),* $(,)?) => {$(
        #[doc = concat!(
            "Written as the ", stringify!($u), " with the sign bit flipped (",
            stringify!($width), " digits), so that text order is number order."
        )]
        impl KeyPart for $t {
            trusted_key_part!();

            #[inline]
            fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
                let flipped = (*self as $u) ^ (1 << (<$u>::BITS - 1));
                write_fixed_u64(flipped as u64, $width, out);
                Ok(())
            }

            fn parse_key(text: &str) -> Result<Self, KeyPartError> {
                read_u64(text, $width)
                    .and_then(|v| <$u>::try_from(v).ok())
                    .map(|u| (u ^ (1 << (<$u>::BITS - 1))) as $t)
                    .ok_or_else(|| KeyPartError::Invalid {
                        expected: concat!(
                            "the key text of an ",
                            stringify!($t),
                            ": exactly ",
                            stringify!($width),
                            " decimal digits (the value with its sign bit flipped)"
                        ),
                        text: text.to_owned(),
                    })
            }
        }

        impl PaddedKeyPart for $t {
            trusted_padded_key_part!();

            #[inline]
            fn write_key_padded(&self, width: usize, out: &mut String) -> Result<(), KeyPartError> {
                match u64::try_from(*self) {
                    Ok(v) => write_padded_u64(v, width, out),
                    Err(_) => Err(KeyPartError::OutOfRange { expected: NEGATIVE_PADDED, value: self.to_string() }),
                }
            }

            fn parse_key_padded(text: &str, width: usize) -> Result<Self, KeyPartError> {
                read_u64(text, width).and_then(|v| <$t>::try_from(v).ok()).ok_or_else(|| {
                    KeyPartError::Invalid {
                        expected: concat!(
                            "a non-negative ",
                            stringify!($t),
                            " zero-padded to the width of its placeholder"
                        ),
                        text: text.to_owned(),
                    }
                })
            }
        }
    )*};
}

unsigned_via_u64!(u8 => 3, u16 => 5, u32 => 10, u64 => 20, usize => 20);
signed_via_u64!(i8 => u8, 3, i16 => u16, 5, i32 => u32, 10, i64 => u64, 20);

/// Written as `isize as i64` is: the `u64` with the sign bit flipped, 20 digits.
impl KeyPart for isize {
    trusted_key_part!();

    #[inline]
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        // `isize` is at most 64 bits wide on every supported target.
        (*self as i64).write_key(out)
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        i64::parse_key(text).and_then(|v| {
            isize::try_from(v).map_err(|_| KeyPartError::Invalid {
                expected: "the key text of an isize: exactly 20 decimal digits, in range for this platform",
                text: text.to_owned(),
            })
        })
    }
}

impl PaddedKeyPart for isize {
    trusted_padded_key_part!();

    #[inline]
    fn write_key_padded(&self, width: usize, out: &mut String) -> Result<(), KeyPartError> {
        (*self as i64).write_key_padded(width, out)
    }

    fn parse_key_padded(text: &str, width: usize) -> Result<Self, KeyPartError> {
        read_u64(text, width).and_then(|v| isize::try_from(v).ok()).ok_or_else(|| KeyPartError::Invalid {
            expected: "a non-negative isize zero-padded to the width of its placeholder",
            text: text.to_owned(),
        })
    }
}

/// Written as 39 zero-padded decimal digits.
impl KeyPart for u128 {
    trusted_key_part!();

    #[inline]
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        let mut buf = [b'0'; U128_DIGITS];
        fill_u128(*self, &mut buf);
        push_ascii(out, &buf);
        Ok(())
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        read_u128(text, U128_DIGITS).ok_or_else(|| KeyPartError::Invalid {
            expected: "the key text of a u128: exactly 39 decimal digits",
            text: text.to_owned(),
        })
    }
}

impl PaddedKeyPart for u128 {
    trusted_padded_key_part!();

    #[inline]
    fn write_key_padded(&self, width: usize, out: &mut String) -> Result<(), KeyPartError> {
        write_padded_u128(*self, width, out)
    }

    fn parse_key_padded(text: &str, width: usize) -> Result<Self, KeyPartError> {
        read_u128(text, width).ok_or_else(|| KeyPartError::Invalid {
            expected: "a u128 zero-padded to the width of its placeholder",
            text: text.to_owned(),
        })
    }
}

/// Written as the u128 with the sign bit flipped (39 digits), so that text order is number order.
impl KeyPart for i128 {
    trusted_key_part!();

    #[inline]
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        ((*self as u128) ^ (1 << 127)).write_key(out)
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        read_u128(text, U128_DIGITS).map(|u| (u ^ (1 << 127)) as i128).ok_or_else(|| KeyPartError::Invalid {
            expected: "the key text of an i128: exactly 39 decimal digits (the value with its sign bit flipped)",
            text: text.to_owned(),
        })
    }
}

impl PaddedKeyPart for i128 {
    trusted_padded_key_part!();

    #[inline]
    fn write_key_padded(&self, width: usize, out: &mut String) -> Result<(), KeyPartError> {
        match u128::try_from(*self) {
            Ok(v) => write_padded_u128(v, width, out),
            Err(_) => Err(KeyPartError::OutOfRange { expected: NEGATIVE_PADDED, value: self.to_string() }),
        }
    }

    fn parse_key_padded(text: &str, width: usize) -> Result<Self, KeyPartError> {
        read_u128(text, width).and_then(|v| i128::try_from(v).ok()).ok_or_else(|| KeyPartError::Invalid {
            expected: "a non-negative i128 zero-padded to the width of its placeholder",
            text: text.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_width_wider_than_any_key_is_an_error_not_a_panic() {
        let mut out = String::new();
        for width in [usize::MAX, usize::MAX / 2, MAX_PADDED_WIDTH + 1] {
            let e = 7u64.write_key_padded(width, &mut out).unwrap_err();
            assert!(matches!(e, KeyPartError::OutOfRange { .. }), "{e:?}");
            assert!(7u128.write_key_padded(width, &mut out).is_err());
            assert!((-1i64).write_key_padded(width, &mut out).is_err());
        }
        assert!(out.is_empty());
        7u8.write_key_padded(MAX_PADDED_WIDTH, &mut out).unwrap();
        assert_eq!(out.len(), MAX_PADDED_WIDTH);
        assert!(out.ends_with("07"));
    }
}
