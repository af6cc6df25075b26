//! The C-library models that real harnesses call (issue 29): `sprintf`,
//! `snprintf`, `strtol`/`atoi`, `memcmp`, `memset`, `time`.  Each program
//! asserts something that holds only if the model is right, and a variant
//! asserts something the model must refute; the expected verdicts come
//! from reading the programs (C17 §7.21.6, §7.22.1.4, §7.24.4.1, §7.27.2.4
//! and glibc's results where C leaves a choice, as the comments say).
//! Where the model cannot be exact (a symbolic number printed, symbolic
//! characters parsed), the path ends as unsupported and the verdict is
//! `inconclusive`, never a wrong `verified`.

use concord::symex::{
    explore, testutil, Exploration, FindingKind, Reduction, SymexOptions, Verdict,
};

fn run_in(src: &str, reduction: Reduction) -> Exploration {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("prog.c");
    std::fs::write(&p, src).unwrap();
    let m = testutil::load(&p).unwrap();
    explore(
        &m,
        &SymexOptions {
            reduction,
            ..Default::default()
        },
    )
    .unwrap()
}

/// The verdict under `none` and `dpor+ag` (they must agree).
fn verdict(src: &str) -> (Verdict, Vec<FindingKind>) {
    let full = run_in(src, Reduction::None);
    let ag = run_in(src, Reduction::DporAg);
    assert_eq!(
        full.stats.verdict, ag.stats.verdict,
        "{:?} vs {:?}",
        full.findings, ag.findings
    );
    let kinds = full.findings.iter().map(|f| f.kind).collect();
    (full.stats.verdict, kinds)
}

fn program(body: &str) -> String {
    format!(
        r#"#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
int main(void) {{
{body}
  return 0;
}}
"#
    )
}

#[test]
fn sprintf_prints_what_printf_would() {
    // "%s-%d:%03x" of "ab", -5, 26 is "ab-" "-5" ":" "01a": 9 characters.
    let body = r#"  char buf[32];
  int n = sprintf(buf, "%s-%d:%03x", "ab", -5, 26);
  assert(n == 9);
  assert(strcmp(buf, "ab--5:01a") == 0);
  assert(buf[9] == 0);"#;
    assert_eq!(verdict(&program(body)), (Verdict::Verified, vec![]));
    // A model that printed anything else would pass this one.
    let body = r#"  char buf[32];
  sprintf(buf, "%d", 42);
  assert(buf[0] == '4' && buf[1] == '3');"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Violation, vec![FindingKind::Assertion])
    );
}

#[test]
fn snprintf_truncates_and_returns_the_full_length() {
    // 12345 needs 5 characters; 4 bytes hold 3 and the NUL.
    let body = r#"  char b[4];
  int n = snprintf(b, sizeof b, "%d", 12345);
  assert(n == 5);
  assert(strcmp(b, "123") == 0);
  assert(snprintf(0, 0, "%s%s", "ab", "cd") == 4);"#;
    assert_eq!(verdict(&program(body)), (Verdict::Verified, vec![]));
}

#[test]
fn sprintf_past_its_buffer_is_a_memory_error() {
    // "12345" and its NUL are 6 bytes: two past a 4-byte buffer.
    let body = r#"  char b[4];
  sprintf(b, "%d", 12345);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Violation, vec![FindingKind::MemoryError])
    );
}

#[test]
fn sprintf_of_a_symbolic_number_is_unsupported_not_verified() {
    // The text of an unknown number has no single length: not modelled.
    let body = r#"  char b[16];
  sprintf(b, "%d", __VERIFIER_nondet_int());
  assert(b[0] != 0);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Inconclusive, vec![FindingKind::Unsupported])
    );
}

#[test]
fn sprintf_into_a_shared_buffer_is_a_scheduling_point() {
    // Each thread prints its number into the shared buffer: the last
    // writer wins, and either thread can be last.  "1" always is wrong.
    let src = r#"#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
char shared[8];
void *w(void *a) { snprintf(shared, sizeof shared, "%d", (int)(long)a); return 0; }
int main(void) {
  pthread_t x, y;
  pthread_create(&x, 0, w, (void *)1L);
  pthread_create(&y, 0, w, (void *)2L);
  pthread_join(x, 0);
  pthread_join(y, 0);
  assert(strcmp(shared, "1") == 0 || strcmp(shared, "2") == 0);
  assert(strcmp(shared, "1") == 0);
  return 0;
}
"#;
    let (v, kinds) = verdict(src);
    assert_eq!(v, Verdict::Violation);
    assert_eq!(kinds, vec![FindingKind::Assertion]);
    let x = run_in(src, Reduction::None);
    assert_eq!(x.findings[0].line, 14, "only the second assertion fails");
}

#[test]
fn strtol_and_atoi_follow_c() {
    // Leading space, sign, the 0x prefix of base 16, digits up to 'z';
    // base 0 reads a leading 0 as octal; atoi stops at the first
    // non-digit; strtol clamps on overflow (LONG_MAX).
    let body = r#"  char *end;
  long v = strtol("  -0x1fz", &end, 16);
  assert(v == -31);
  assert(*end == 'z');
  assert(strtol("077", 0, 0) == 63);
  assert(atoi("42abc") == 42);
  assert(atoi("abc") == 0);
  assert(strtol("99999999999999999999", 0, 10) == 9223372036854775807L);
  assert(strtoul("-1", 0, 10) == 18446744073709551615UL);
  end = 0;
  strtol("xyz", &end, 10);
  assert(end != 0 && *end == 'x');"#;
    assert_eq!(verdict(&program(body)), (Verdict::Verified, vec![]));
    let body = r#"  assert(atoi(" 17") != 17);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Violation, vec![FindingKind::Assertion])
    );
}

#[test]
fn atoi_of_symbolic_characters_is_unsupported() {
    let body = r#"  char s[3];
  s[0] = __VERIFIER_nondet_uchar();
  s[1] = 0;
  assert(atoi(s) < 10);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Inconclusive, vec![FindingKind::Unsupported])
    );
}

#[test]
fn memcmp_compares_bytes_also_symbolic_ones() {
    // "abc" and "abd" agree on 2 bytes; at the third 'c' < 'd', and glibc
    // returns the difference of the bytes ('c' - 'd' = -1; 0xff - 1 as
    // unsigned chars is 254).
    let body = r#"  char a[4] = "abc", b[4] = "abd";
  unsigned char hi[1] = {0xff}, lo[1] = {1};
  assert(memcmp(a, b, 2) == 0);
  assert(memcmp(a, b, 3) < 0);
  assert(memcmp(b, a, 3) > 0);
  assert(memcmp(hi, lo, 1) == 254);"#;
    assert_eq!(verdict(&program(body)), (Verdict::Verified, vec![]));
    // With a symbolic byte: equal exactly when x == 'q'.
    let body = r#"  unsigned char x = __VERIFIER_nondet_uchar();
  char s[2] = {0, 0};
  s[0] = x;
  if (memcmp(s, "q", 2) == 0)
    assert(x == 'q');
  else
    assert(x != 'q');"#;
    assert_eq!(verdict(&program(body)), (Verdict::Verified, vec![]));
    let body = r#"  unsigned char x = __VERIFIER_nondet_uchar();
  char s[2] = {0, 0};
  s[0] = x;
  assert(memcmp(s, "q", 2) != 0);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Violation, vec![FindingKind::Assertion])
    );
}

#[test]
fn memset_fills_bytes() {
    // Every byte 0xff: each int reads -1; then the first 4 bytes zeroed.
    let body = r#"  int a[4];
  memset(a, 0xff, sizeof a);
  assert(a[2] == -1);
  memset(a, 0, sizeof(int));
  assert(a[0] == 0 && a[1] == -1);"#;
    assert_eq!(verdict(&program(body)), (Verdict::Verified, vec![]));
    let body = r#"  int a[2];
  memset(a, 1, sizeof a);
  assert(a[1] == 1);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Violation, vec![FindingKind::Assertion])
    );
}

#[test]
fn time_is_an_input_that_never_goes_back() {
    // The clock is any time, never negative, and a later call never reads
    // less; time(&t) stores what it returns.
    let body = r#"  time_t t0 = time(0);
  time_t t1;
  time_t r = time(&t1);
  assert(r == t1);
  assert(t0 >= 0);
  assert(t1 >= t0);"#;
    assert_eq!(verdict(&program(body)), (Verdict::Verified, vec![]));
    // But it may move on between two calls...
    let body = r#"  time_t t0 = time(0);
  assert(time(0) == t0);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Violation, vec![FindingKind::Assertion])
    );
    // ...and it is not a constant.
    let body = r#"  assert(time(0) != 1700000000);"#;
    assert_eq!(
        verdict(&program(body)),
        (Verdict::Violation, vec![FindingKind::Assertion])
    );
}
