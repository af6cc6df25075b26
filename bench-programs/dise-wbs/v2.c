#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

int AltPress = 0;
int Meter = 2;

void update(int PedalPos, int BSwitch, int PedalCmd) {
  if (PedalPos <= 0)            // n0 (modified)
    PedalCmd = PedalCmd + 1;    // n1
  else if (PedalPos == 1)       // n2
    PedalCmd = PedalCmd + 2;    // n3
  else
    PedalCmd = PedalPos * 2;    // n4
  AltPress = PedalCmd;          // n5
  if (BSwitch == 0)             // n6
    Meter = 1;                  // n7
  else if (BSwitch == 1)        // n8
    Meter = 2;                  // n9
  if (PedalCmd == 2)            // n10
    AltPress = 0;               // n11
  else if (PedalCmd == 3)       // n12
    AltPress = 1;               // n13
  else
    AltPress = 2;               // n14
}

void *wbs(void *arg) {
  int pos = __VERIFIER_nondet_int();
  int sw = __VERIFIER_nondet_int();
  int cmd = __VERIFIER_nondet_int();
  update(pos, sw, cmd);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, wbs, 0);
  pthread_join(t, 0);
  return 0;
}
