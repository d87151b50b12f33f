//! `multipleOf` with a divisor that is not an integer, decided exactly on the numbers'
//! decimal spelling: `0.3` is a multiple of `0.1` here, although `0.3 / 0.1` in floating point
//! is `2.9999999999999996`.
//!
//! A number is read as `mantissa × 10^exponent` from its shortest decimal text (what serde_json
//! prints for it, which reads back to the same value). `a` is a multiple of `b` exactly when
//! `ma × 10^(ea − eb)` is divisible by `mb` (for `ea ≥ eb`), or `ma` by `mb × 10^(eb − ea)`;
//! both are decided with modular arithmetic, without big integers.

use crate::value::pow_mod;
use serde_json::Number;

/// `|n|` as `(mantissa, exponent)`, trailing zeros moved into the exponent. `None` when the
/// mantissa does not fit 64 bits (never for what serde_json parses without arbitrary precision).
fn decimal(n: &Number) -> Option<(u64, i64)> {
    let text = n.to_string();
    let text = text.strip_prefix('-').unwrap_or(&text);
    let (digits, exp) = match text.find(['e', 'E']) {
        Some(i) => (text.get(..i)?, text.get(i + 1..)?.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut all: String = format!("{int}{frac}");
    let mut exp = exp - frac.len() as i64;
    while all.len() > 1 && all.ends_with('0') {
        all.pop();
        exp += 1;
    }
    let all = all.trim_start_matches('0');
    if all.is_empty() {
        return Some((0, 0));
    }
    Some((all.parse::<u64>().ok()?, exp))
}

/// True when `n` is an integer multiple of the positive `m`, exactly.
pub(super) fn is_multiple(n: &Number, m: &Number) -> bool {
    let (Some((ma, ea)), Some((mb, eb))) = (decimal(n), decimal(m)) else {
        // Not reachable for serde_json numbers; a float check is the best left.
        return match (n.as_f64(), m.as_f64()) {
            (Some(a), Some(b)) if b != 0.0 => (a / b).fract() == 0.0,
            _ => false,
        };
    };
    if ma == 0 {
        return true;
    }
    if mb == 0 {
        return false;
    }
    let (ma, mb) = (u128::from(ma), u128::from(mb));
    if ea >= eb {
        let e = (ea - eb) as u64;
        (ma % mb) * pow_mod(10, e, mb) % mb == 0
    } else {
        let e = (eb - ea) as u32;
        match 10u128.checked_pow(e).and_then(|p| p.checked_mul(mb)) {
            Some(q) => ma % q == 0,
            // The divisor exceeds the mantissa: only zero divides.
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_multiple;
    use serde_json::json;

    fn m(a: serde_json::Value, b: serde_json::Value) -> bool {
        is_multiple(a.as_number().unwrap(), b.as_number().unwrap())
    }

    #[test]
    fn decimals_are_exact() {
        assert!(m(json!(0.3), json!(0.1)));
        assert!(m(json!(0.0075), json!(0.0001)));
        assert!(!m(json!(0.00751), json!(0.0001)));
        assert!(m(json!(4.5), json!(1.5)));
        assert!(!m(json!(35), json!(1.5)));
        assert!(m(json!(-19.99), json!(0.01)));
        assert!(m(json!(0), json!(0.7)));
        assert!(!m(json!(1e308), json!(0.123456789)));
        assert!(m(json!(1e308), json!(0.5)));
        assert!(!m(json!(1e-300), json!(0.5)));
        assert!(m(json!(12_345_678_901_234_567_u64), json!(0.5)));
    }
}
