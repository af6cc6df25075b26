use super::*;

impl<'c, 'm> Engine<'c, 'm> {
    // -------------------------------------------------------------- solving

    pub(crate) fn check(&mut self, pcon: &[Bool<'c>], extra: &[Bool<'c>]) -> SatResult {
        self.stats.solver_queries += 1;
        let t = Instant::now();
        self.solver.push();
        for c in pcon.iter().chain(extra) {
            self.solver.assert(c);
        }
        let r = self.solver.check();
        self.solver.pop(1);
        self.stats.solver_ms += t.elapsed().as_secs_f64() * 1000.0;
        r
    }

    pub(crate) fn may_be(&mut self, pcon: &[Bool<'c>], c: &Cond<'c>) -> bool {
        let c = c.simplify();
        if let Some(b) = c.as_bool() {
            return b;
        }
        self.check(pcon, &[c.bool(self.ctx)]) != SatResult::Unsat
    }

    /// Add a condition to a path condition (nothing when it is true).
    pub(crate) fn pc_add(&self, pcon: &mut Vec<Bool<'c>>, c: &Cond<'c>) {
        match c.simplify() {
            Cond::C(true) => {}
            c => pcon.push(c.bool(self.ctx)),
        }
    }

    pub(crate) fn model_inputs(&mut self, st: &State<'c>) -> Vec<InputValue> {
        self.solver.push();
        for c in &st.pcon {
            self.solver.assert(c);
        }
        let mut out = Vec::new();
        if self.solver.check() == SatResult::Sat {
            if let Some(model) = self.solver.get_model() {
                for (n, v) in &st.inputs {
                    let val = model
                        .eval(&self.zterm(v), true)
                        .and_then(|x| x.as_u64())
                        .unwrap_or(0);
                    out.push(InputValue {
                        name: n.clone(),
                        bits: v.get_size(),
                        value: val,
                    });
                }
            }
        }
        self.solver.pop(1);
        out
    }
}
