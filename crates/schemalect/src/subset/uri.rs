//! URI reference resolution (RFC 3986, section 5.2), enough for `$id` and `$ref`: a base and a
//! reference in, the target URI out. Bases may themselves be relative (a document without an
//! `$id` has the empty base), in which case the result is relative too, consistently: the same
//! inputs always give the same key, which is all reference lookup needs. Nothing is fetched.

/// The five components of a URI reference, as slices of the text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(text: &str) -> Parts<'_> {
    let (rest, fragment) = match text.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (text, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let (scheme, rest) = match rest.find(':') {
        Some(i)
            if i > 0
                && rest.get(..i).is_some_and(|s| {
                    s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                })
                && rest
                    .get(..i)
                    .and_then(|s| s.chars().next())
                    .is_some_and(|c| c.is_ascii_alphabetic()) =>
        {
            (rest.get(..i), rest.get(i + 1..).unwrap_or(""))
        }
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => match after.find('/') {
            Some(i) => (after.get(..i), after.get(i..).unwrap_or("")),
            None => (Some(after), ""),
        },
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// RFC 3986 5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    let mut trailing = false;
    for (i, seg) in segments.iter().enumerate() {
        if i == 0 && absolute {
            continue;
        }
        match *seg {
            "." => trailing = i == last,
            ".." => {
                out.pop();
                trailing = i == last;
            }
            s => {
                out.push(s);
                trailing = false;
            }
        }
    }
    let mut s = String::with_capacity(path.len());
    if absolute {
        s.push('/');
    }
    s.push_str(&out.join("/"));
    if trailing && !s.ends_with('/') {
        s.push('/');
    }
    s
}

fn merge(base: &Parts<'_>, reference: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{reference}");
    }
    match base.path.rfind('/') {
        Some(i) => format!("{}{reference}", base.path.get(..=i).unwrap_or("")),
        None => reference.to_owned(),
    }
}

fn compose(
    scheme: Option<&str>,
    authority: Option<&str>,
    path: &str,
    query: Option<&str>,
    fragment: Option<&str>,
) -> String {
    let mut s = String::new();
    if let Some(sc) = scheme {
        s.push_str(sc);
        s.push(':');
    }
    if let Some(a) = authority {
        s.push_str("//");
        s.push_str(a);
    }
    s.push_str(path);
    if let Some(q) = query {
        s.push('?');
        s.push_str(q);
    }
    if let Some(f) = fragment {
        s.push('#');
        s.push_str(f);
    }
    s
}

/// `reference` resolved against `base` (RFC 3986 5.2.2).
pub(crate) fn resolve(base: &str, reference: &str) -> String {
    let r = split(reference);
    let b = split(base);
    if r.scheme.is_some() {
        let path = remove_dot_segments(r.path);
        return compose(r.scheme, r.authority, &path, r.query, r.fragment);
    }
    if r.authority.is_some() {
        let path = remove_dot_segments(r.path);
        return compose(b.scheme, r.authority, &path, r.query, r.fragment);
    }
    if r.path.is_empty() {
        let query = r.query.or(b.query);
        return compose(b.scheme, b.authority, b.path, query, r.fragment);
    }
    let path = if r.path.starts_with('/') {
        remove_dot_segments(r.path)
    } else {
        remove_dot_segments(&merge(&b, r.path))
    };
    compose(b.scheme, b.authority, &path, r.query, r.fragment)
}

/// The URI without its fragment, and the fragment (`""` when absent or empty).
pub(crate) fn split_fragment(uri: &str) -> (&str, &str) {
    match uri.split_once('#') {
        Some((base, frag)) => (base, frag),
        None => (uri, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn resolves_as_rfc_3986_says() {
        let base = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("urn:x:y", "urn:x:y"),
        ] {
            assert_eq!(resolve(base, r), want, "{r}");
        }
        assert_eq!(resolve("", "#/a"), "#/a");
        assert_eq!(resolve("", "foo.json"), "foo.json");
        assert_eq!(
            resolve("http://localhost:1234/tree", "node"),
            "http://localhost:1234/node"
        );
        assert_eq!(
            resolve("urn:uuid:deadbeef", "#foo"),
            "urn:uuid:deadbeef#foo"
        );
    }
}
