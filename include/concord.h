/* concord.h — annotations understood by `concord symex`.
 *
 * concord_symbolic(&x, sizeof x, "name") makes the bytes of x a fresh
 * symbolic input called "name" (the value printed in test cases and used by
 * `concord replay`).  The SV-COMP conventions are understood as well:
 * __VERIFIER_nondet_int() and friends, __VERIFIER_assume(cond),
 * __VERIFIER_atomic_begin()/__VERIFIER_atomic_end(), functions whose name
 * starts with __VERIFIER_atomic_ (run atomically), reach_error() and
 * __VERIFIER_error() (error calls).
 */
#ifndef CONCORD_H
#define CONCORD_H
#include <stddef.h>
void concord_symbolic(void *addr, size_t bytes, const char *name);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
long __VERIFIER_nondet_long(void);
char __VERIFIER_nondet_char(void);
_Bool __VERIFIER_nondet_bool(void);
void __VERIFIER_assume(int cond);
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
void reach_error(void);
#endif
