use super::directed::PathEnd;
use super::notes::Note;
use super::state::{State, TStatus};
use super::strategy::NodeView;
use super::transitions::{Access, DNode, Res};
use super::val::Cond;
use super::visibility::Next;
use super::{loc_of, peak_rss_kb, Addr, Engine, Event, Step, Stop, MAX_STEPS};
use crate::symex::{Exploration, Finding, FindingKind};
use llvm_ir::HasDebugLoc;
use std::collections::BTreeSet;
use std::time::Instant;
use z3::ast::Bool;

impl<'c, 'm> Engine<'c, 'm> {
    // ----------------------------------------------------------- exploration

    pub(super) fn timed_out(&mut self) -> bool {
        if self.stop {
            return true;
        }
        if let Some(mr) = self.opts.max_runs {
            if self.stats.runs() + self.stats.partial_runs >= mr {
                self.stop = true;
                self.stats.budget = Some(format!("--max-runs {mr}"));
            }
        }
        if let Some(ms) = self.opts.max_seconds {
            if self.start.elapsed().as_secs_f64() > ms {
                self.stop = true;
                self.stats.budget = Some(format!("--max-time {ms:.1}"));
            }
        }
        if self.stop {
            self.stats.incomplete = true;
        }
        self.persist_flush(false);
        if self.opts.progress && self.last_progress.elapsed().as_secs_f64() > 1.0 {
            self.last_progress = Instant::now();
            self.note(Note::Progress {
                seconds: self.start.elapsed().as_secs_f64(),
                runs: self.stats.runs(),
                partial: self.stats.partial_runs,
                findings: self.findings.len(),
                queries: self.stats.solver_queries,
            });
        }
        self.stop
    }

    pub(super) fn finish(mut self) -> Exploration {
        self.stats.total_ms = self.start.elapsed().as_secs_f64() * 1000.0;
        self.stats.peak_memory_kb = peak_rss_kb();
        self.stats.summaries = self.ps.len() as u64;
        self.stats.max_interferences = self.opts.max_interferences;
        let paths = self.directed_paths();
        let mut x = Exploration {
            findings: self.findings,
            stats: self.stats,
            paths,
            violating_classes: std::mem::take(&mut self.violating_classes),
        };
        let (verdict, reasons) = x.decide(self.opts.loop_bound);
        x.stats.verdict = verdict;
        x.stats.reasons = reasons;
        x
    }

    /// Name of a synchronisation object (`place_names`): `pool.lock`,
    /// `(struct pool @ prog.c:24).lock`.
    pub(super) fn sync_name(&self, st: &State<'c>, a: &Addr) -> String {
        self.place_name(st, a.0, a.1)
    }

    /// Each unfinished thread of a deadlocked state: where it is, which
    /// locks it holds and what it waits for.
    fn deadlock_story(&self, st: &State<'c>) -> String {
        // every access, also those a slice leaves out of the dependence
        let nexts: Vec<Next> = (0..st.threads.len())
            .map(|t| self.next_of_raw(st, t))
            .collect();
        let mut parts = Vec::new();
        for (t, n) in nexts.iter().enumerate() {
            if matches!(n, Next::Done) {
                continue;
            }
            let held: Vec<String> = st
                .mutex
                .iter()
                .filter(|(_, o)| **o == t)
                .map(|(a, _)| self.sync_name(st, a))
                .collect();
            let waits: Vec<String> = match n {
                Next::Disabled(acc) => acc
                    .iter()
                    .filter_map(|x| match &x.res {
                        Res::Mutex(a) => Some(format!("lock {}", self.sync_name(st, a))),
                        Res::Cond(a) => Some(format!("signal on {}", self.sync_name(st, a))),
                        Res::ThreadEnd(u) => Some(format!("end of T{u} (join)")),
                        _ => None,
                    })
                    .collect(),
                Next::Cut => vec!["nothing (cut at the loop bound)".into()],
                _ => vec![],
            };
            let ((loc, _), f) = self.thread_loc(st, t);
            parts.push(format!(
                "T{t} at {} holds [{}] and waits for {}",
                if loc.is_empty() { f } else { loc },
                held.join(", "),
                if waits.is_empty() {
                    "nothing".into()
                } else {
                    waits.join(" or ")
                }
            ));
        }
        parts.join("; ")
    }

    /// Remember where thread `tid` was cut (it sits at the loop header,
    /// the call, or the instruction where the step limit hit).
    pub(super) fn note_cut(&mut self, st: &State<'c>, tid: usize) {
        // The loop header may start with instructions without a source
        // line (phis, loads of the induction variable): use the first one
        // in the block that has a line.
        let ((mut loc, mut line), f) = self.thread_loc(st, tid);
        if line == 0 {
            if let Some(fr) = st.threads[tid].frames.last() {
                let bb = &self.m.functions[fr.f].basic_blocks[fr.bb];
                let dls = bb.instrs[fr.ip.min(bb.instrs.len())..]
                    .iter()
                    .map(|i| i.get_debug_loc().clone())
                    .chain(std::iter::once(bb.term.get_debug_loc().clone()));
                for dl in dls {
                    let (l, n) = loc_of(&dl);
                    if n > 0 {
                        (loc, line) = (l, n);
                        break;
                    }
                }
            }
        }
        let loc = if line == 0 && loc.is_empty() { f } else { loc };
        *self.stats.cut_locations.entry(loc).or_insert(0) += 1;
    }

    pub(super) fn report(
        &mut self,
        st: &State<'c>,
        tid: usize,
        kind: FindingKind,
        msg: String,
        loc: (String, u32),
        func: String,
    ) {
        let location = if loc.0.is_empty() {
            func.clone()
        } else {
            loc.0.clone()
        };
        self.directed_end(
            st,
            PathEnd::Finding {
                kind,
                location: location.clone(),
            },
        );
        self.rf_classes_violation(st, tid, kind, &location);
        let key = (kind, location.clone());
        if let Some(&i) = self.fseen.get(&key) {
            self.findings[i].hits += 1;
            return;
        }
        let inputs = self.model_inputs(st);
        if self.opts.progress {
            self.note(Note::Found {
                kind,
                location: location.clone(),
                message: msg.clone(),
            });
        }
        self.fseen.insert(key, self.findings.len());
        self.findings.push(Finding {
            kind,
            location,
            line: loc.1,
            function: func,
            message: msg,
            thread: tid,
            inputs,
            schedule: st.sched.clone(),
            hits: 1,
            interferences: self
                .opts
                .max_interferences
                .map(|_| self.interferences_so_far(st, tid)),
            trace: self.trace_of(st),
        });
        if let Some(tx) = &self.sink {
            // The receiver lives as long as the exploration; a failed send
            // only means nobody listens.
            let _ = tx.send(Event::Finding(
                self.findings[self.findings.len() - 1].clone(),
            ));
        }
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(super) fn explore_sched(
        &mut self,
        mut st: State<'c>,
        tid: usize,
        sleep: Vec<(usize, Vec<Access>)>,
    ) -> Cond<'c> {
        let seg = std::mem::take(&mut st.seg);
        if st.normalizing {
            st.normalizing = false;
            st.tail_run = None;
            st.tr_acc.retain(|a| !matches!(a.res, Res::ThreadEnd(_)));
        } else {
            self.commit(&mut st, tid);
            if self.interference_bound_hit(&st) {
                return Cond::C(false);
            }
        }
        let w = self.sched_inner(st, sleep);
        self.apply_seg(&seg, w)
    }

    pub(super) fn sched_inner(
        &mut self,
        mut st: State<'c>,
        sleep: Vec<(usize, Vec<Access>)>,
    ) -> Cond<'c> {
        let tru = Cond::C(true);
        let fls = Cond::C(false);
        if self.timed_out() {
            return fls;
        }
        // New threads first run their local prefix (it commutes with
        // everything), so that every thread sits at a visible operation.
        if let Some(u) = (0..st.threads.len()).find(|&u| self.unpositioned(&st, u)) {
            let mut st = st;
            st.normalizing = true;
            return self.run_thread(st, u, false, sleep);
        }
        let nexts: Vec<Next> = (0..st.threads.len())
            .map(|t| self.next_of(&st, t))
            .collect();
        if nexts.iter().all(|n| matches!(n, Next::Done)) {
            if self.debug {
                self.note(Note::Debug(format!(
                    "complete run: schedule {:?}",
                    st.sched
                )));
            }
            self.stats.complete_runs += 1;
            self.directed_end(&st, PathEnd::Complete);
            return tru;
        }
        let mut enabled: Vec<usize> = (0..nexts.len())
            .filter(|t| matches!(nexts[*t], Next::Enabled(_)))
            .collect();
        let strategy = self.strategy;
        let pruning = self.pruning;
        strategy.races_at_state(self, &st, &nexts);
        // An atomic section excludes every other thread while its owner can move.
        if let Some(a) = enabled.iter().find(|t| st.threads[**t].atomic > 0) {
            enabled = vec![*a];
        }
        // Deferred tails run when nothing else can move, or as soon as a
        // thread waits to join them (they commute with everything else).
        let tails: Vec<usize> = (0..nexts.len())
            .filter(|t| matches!(nexts[*t], Next::Tail))
            .collect();
        if !tails.is_empty() {
            let joined = tails.iter().copied().find(|u| {
                nexts.iter().any(|n| {
                    matches!(n, Next::Disabled(a) if a.iter().any(|x| x.res == Res::ThreadEnd(*u)))
                })
            });
            if enabled.is_empty() || joined.is_some() {
                let u = joined.unwrap_or(tails[0]);
                return self.run_tail(st, u, sleep);
            }
        }
        if enabled.is_empty() && nexts.iter().any(|n| matches!(n, Next::Cut)) {
            // A thread was cut at the loop bound: the run ends here (the
            // others are finished or wait for it), counted as cut.
            self.stats.cut_runs += 1;
            self.directed_end(&st, PathEnd::Cut);
            return fls;
        }
        if enabled.is_empty() {
            let blocked: Vec<String> = (0..nexts.len())
                .filter(|t| matches!(nexts[*t], Next::Disabled(_)))
                .map(|t| format!("T{t}"))
                .collect();
            let (loc, fname) = self.thread_loc(&st, blocked.first().map(|_| 0).unwrap_or(0));
            let loc = self.deadlock_loc(&st).unwrap_or((loc, fname));
            self.stats.error_runs += 1;
            self.report(
                &st,
                0,
                FindingKind::Deadlock,
                format!(
                    "deadlock: {} blocked; {}",
                    blocked.join(", "),
                    self.deadlock_story(&st)
                ),
                loc.0,
                loc.1,
            );
            return fls;
        }
        let key = self.node_key(&st);
        self.persist_visit(&st, key);
        // Every enabled thread asleep: a sleep-set strategy ends the path
        // here (each continuation is equivalent to one explored
        // elsewhere), and it is no run whether a summary covers the node
        // or not; a summary that does is still a better wp for the node
        // above than `false`.
        if strategy.all_asleep_ends_path()
            && enabled.iter().all(|t| sleep.iter().any(|(q, _)| q == t))
        {
            self.stats.sleep_blocked += 1;
            return pruning.covered(self, &st, key, &sleep).unwrap_or(fls);
        }
        // Summary pruning.  `restricted`: the summary covers every
        // continuation except those starting with threads that were asleep
        // when it was computed but are awake now; only those are explored.
        let mut restricted: Option<(Cond<'c>, Vec<usize>)> = None;
        if let Some((ps, uncovered)) = pruning.covered_at_node(self, &st, key, &enabled, &sleep) {
            if uncovered.is_empty() {
                if self.debug {
                    self.note(Note::Debug(format!(
                        "pruned at schedule {:?}: PS = {ps:?}",
                        st.sched
                    )));
                }
                self.stats.partial_runs += 1;
                self.stats.pruned_interleavings += 1;
                self.directed_end(&st, PathEnd::Pruned);
                strategy.on_prune(self, &st, key);
                return ps;
            }
            strategy.on_prune(self, &st, key);
            restricted = Some((ps, uncovered));
        }
        if let Some(s) = &self.opts.schedule {
            match s.get(st.sched.len()) {
                Some(t) if enabled.contains(t) => enabled = vec![*t],
                Some(t) => {
                    // The test case was not made for this program (or this
                    // bound): say so instead of replaying something else.
                    if self.stats.replay_mismatch.is_none() {
                        self.stats.replay_mismatch = Some(format!(
                            "scheduling point {}: thread {t} cannot run (runnable: {enabled:?})",
                            st.sched.len() + 1
                        ));
                    }
                    enabled.truncate(1);
                }
                // Schedule exhausted: finish with the lowest enabled thread.
                None => enabled.truncate(1),
            }
        }
        self.nodes.push(DNode {
            enabled: enabled.clone(),
            backtrack: BTreeSet::new(),
            done: BTreeSet::new(),
            tr: None,
            sleep: sleep.clone(),
            wut: std::mem::take(&mut st.wut),
        });
        self.open_push(key);
        let d = self.nodes.len() - 1;
        let mut wp = match &restricted {
            Some((ps, _)) => ps.clone(),
            None => tru.clone(),
        };
        // Exploration order (`thread_order`): for the complete search,
        // threads that have not run yet first, then round robin from the
        // thread after the one that ran last.  The first run alternates
        // threads (as in the paper's figures; DPOR then flips one race at a
        // time), also when a thread is created after others ran (issue
        // 29's needles: two threads that must strictly alternate).
        let mut order = self.thread_order(&st, &enabled);
        self.directed_order_threads(&st, &mut order);
        if let Some((_, uncovered)) = &restricted {
            order.retain(|t| uncovered.contains(t));
        }
        let node = NodeView {
            d,
            order: &order,
            nexts: &nexts,
            sleep: &sleep,
            uncovered: restricted.as_ref().map(|(_, u)| u.as_slice()),
        };
        if !strategy.open_node(self, &node) {
            self.stats.sleep_blocked += 1;
            self.nodes.pop();
            self.open.pop();
            return fls;
        }
        let mut explored = 0usize;
        // No target reachable: one continuation (run to its end for DPOR).
        let dead = self.diff_dead(&st);
        while let Some((t, wakeup)) = strategy.choose_next(self, &node) {
            self.nodes[d].done.insert(t);
            self.nodes[d].tr = None;
            let tacc = node.next_accesses(t);
            let child_sleep = strategy.child_sleep(self, &st, &node, t, &tacc);
            if self.debug {
                self.note(Note::Debug(format!(
                    "node {:?}: explore T{t} (next {:?}), child sleep {:?}, wakeup {:?}",
                    st.sched, tacc, child_sleep, wakeup
                )));
            }
            let mut child = st.clone();
            child.sched.push(t);
            child.wut = wakeup;
            let w = self.run_thread(child, t, true, child_sleep);
            wp = pruning.and_child(self, wp, &w);
            explored += 1;
            self.nodes[d].sleep.push((t, tacc));
            if self.stop || dead {
                break;
            }
        }
        self.stats.pruned_interleavings += (enabled.len().saturating_sub(explored)) as u64;
        self.nodes.pop();
        self.open.pop();
        // A node entered with a non-empty sleep set explored only the
        // continuations not starting with a sleeping thread: the summary
        // remembers those threads and is only used at a later visit where
        // they are asleep too (sleep sets and state matching, cf. §5.2).
        if !self.stop && restricted.is_none() && self.diff_may_record(&st) {
            pruning.record(self, key, &wp, &sleep);
        }
        wp
    }

    /// Run the deferred tail of thread `u` (a node with a single successor,
    /// summarised like any other node).
    pub(super) fn run_tail(
        &mut self,
        mut st: State<'c>,
        u: usize,
        sleep: Vec<(usize, Vec<Access>)>,
    ) -> Cond<'c> {
        let key = self.node_key(&st);
        self.persist_visit(&st, key);
        let (strategy, pruning) = (self.strategy, self.pruning);
        if let Some(ps) = pruning.covered(self, &st, key, &sleep) {
            if self.debug {
                self.note(Note::Debug(format!(
                    "pruned before tail at schedule {:?}: PS = {ps:?}",
                    st.sched
                )));
            }
            self.stats.partial_runs += 1;
            self.directed_end(&st, PathEnd::Pruned);
            strategy.on_prune(self, &st, key);
            return ps;
        }
        st.threads[u].tail = false;
        st.normalizing = true;
        st.tail_run = Some(u);
        let may_record = self.diff_may_record(&st);
        self.open_push(key);
        let w = self.run_thread(st, u, false, sleep.clone());
        self.open.pop();
        if !self.stop && may_record {
            pruning.record(self, key, &w, &sleep);
        }
        w
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(super) fn unpositioned(&self, st: &State<'c>, t: usize) -> bool {
        let th = &st.threads[t];
        if th.status != TStatus::Run || th.tail {
            return false;
        }
        let fr = th.frames.last().unwrap();
        let bb = &self.m.functions[fr.f].basic_blocks[fr.bb];
        fr.ip >= bb.instrs.len() || self.visible_access(st, t, &bb.instrs[fr.ip]).is_none()
    }

    /// Location of a deadlock: the first thread blocked on a mutex or
    /// condition variable, else the first unfinished thread.
    pub(super) fn deadlock_loc(&self, st: &State<'c>) -> Option<((String, u32), String)> {
        let on_sync = (0..st.threads.len()).find(|t| match self.next_of_raw(st, *t) {
            Next::Disabled(a) => a
                .iter()
                .any(|x| matches!(x.res, Res::Mutex(_) | Res::Cond(_))),
            _ => false,
        });
        let t = on_sync.or_else(|| st.threads.iter().position(|th| th.status != TStatus::Done))?;
        Some(self.thread_loc(st, t))
    }

    pub(super) fn thread_loc(&self, st: &State<'c>, t: usize) -> ((String, u32), String) {
        let th = &st.threads[t];
        match th.frames.last() {
            Some(fr) => {
                let f = &self.m.functions[fr.f];
                let bb = &f.basic_blocks[fr.bb];
                let dl = if fr.ip < bb.instrs.len() {
                    bb.instrs[fr.ip].get_debug_loc().clone()
                } else {
                    bb.term.get_debug_loc().clone()
                };
                (loc_of(&dl), f.name.clone())
            }
            None => ((String::new(), 0), String::new()),
        }
    }

    /// Run thread `tid` from `st`: its visible operation first (when
    /// `first`), then local operations up to the next visible one.
    pub(super) fn run_thread(
        &mut self,
        mut st: State<'c>,
        tid: usize,
        first: bool,
        sleep: Vec<(usize, Vec<Access>)>,
    ) -> Cond<'c> {
        let fls = Cond::C(false);
        let mut first = first;
        loop {
            if st.threads[tid].status == TStatus::Done {
                return self.explore_sched(st, tid, sleep);
            }
            st.steps += 1;
            if st.steps > MAX_STEPS {
                let strategy = self.strategy;
                strategy.on_path_end(self, &st, tid);
                self.note_cut(&st, tid);
                self.stats.cut_runs += 1;
                self.directed_end(&st, PathEnd::Cut);
                return fls;
            }
            let mut vis = false;
            if let TStatus::WaitCond { .. }
            | TStatus::Reacquire { .. }
            | TStatus::TimedWait { .. } = st.threads[tid].status
            {
                vis = true;
                if !first {
                    return self.explore_sched(st, tid, sleep);
                }
            } else {
                let fr = st.threads[tid].frames.last().unwrap();
                let bb = &self.m.functions[fr.f].basic_blocks[fr.bb];
                if fr.ip < bb.instrs.len() {
                    if let Some((_, enabled)) = self.visible_access(&st, tid, &bb.instrs[fr.ip]) {
                        vis = true;
                        if !first && (st.threads[tid].atomic == 0 || !enabled) {
                            return self.explore_sched(st, tid, sleep);
                        }
                    }
                }
            }
            if !first
                && !vis
                && st.tail_run != Some(tid)
                && st.threads[tid].atomic == 0
                && st.threads[tid].status == TStatus::Run
                && self.is_tail(&st, tid)
            {
                st.threads[tid].tail = true;
                return self.explore_sched(st, tid, sleep);
            }
            if vis {
                first = false;
                self.note_visible_at(&mut st, tid);
            }
            // A visible step goes into the run's trace.
            let traced = (vis && self.trace).then(|| {
                let fr = st.threads[tid].frames.last().unwrap();
                let reacq = matches!(
                    st.threads[tid].status,
                    TStatus::Reacquire { .. } | TStatus::TimedWait { .. }
                );
                ((fr.f, fr.bb, fr.ip), reacq)
            });
            self.diff_before_step(&mut st, tid);
            let r = self.step(&mut st, tid);
            if let (Some((at, reacq)), Ok(Step::Continue | Step::Yield)) = (traced, &r) {
                let block = &self.m.functions[at.0].basic_blocks[at.1];
                if let Some(i) = block.instrs.get(at.2) {
                    let op = self.trace_op(&st, tid, i, matches!(r, Ok(Step::Yield)), reacq);
                    self.trace_push(&mut st, tid, at, op);
                }
            }
            match r {
                Ok(Step::Continue) => {}
                Ok(Step::Yield) => return self.explore_sched(st, tid, sleep),
                Err(Stop::Cut) => {
                    self.note_cut(&st, tid);
                    st.threads[tid].status = TStatus::Cut;
                    st.threads[tid].tail = false;
                    st.threads[tid].atomic = 0;
                    return self.explore_sched(st, tid, sleep);
                }
                Ok(Step::Fork { alts }) => return self.fork(st, tid, alts, sleep, first),
                Err(stop) => {
                    let w = self.end_wp(&stop);
                    self.end_path(&st, tid, stop);
                    return w;
                }
            }
        }
    }

    /// Account for a path that ends in thread `tid` (not at a cut, which
    /// lets the other threads run on).
    fn end_path(&mut self, st: &State<'c>, tid: usize, stop: Stop) {
        let strategy = self.strategy;
        strategy.on_path_end(self, st, tid);
        let (kind, msg) = match stop {
            Stop::AssumeFalse => {
                self.stats.assume_false += 1;
                self.directed_end(st, PathEnd::AssumeFalse);
                return;
            }
            Stop::Cut => unreachable!("a cut thread is handled by the caller"),
            Stop::Finding(kind, msg) => (kind, msg),
            Stop::Unsupported(msg) => (FindingKind::Unsupported, msg),
        };
        self.stats.error_runs += 1;
        let (loc, f) = self.thread_loc(st, tid);
        self.report(st, tid, kind, msg, loc, f);
    }

    pub(super) fn fork(
        &mut self,
        mut st: State<'c>,
        tid: usize,
        alts: Vec<(Bool<'c>, Cond<'c>, usize)>,
        sleep: Vec<(usize, Vec<Access>)>,
        first: bool,
    ) -> Cond<'c> {
        let seg = std::mem::take(&mut st.seg);
        let key = self.node_key(&st);
        self.persist_visit(&st, key);
        let (strategy, pruning) = (self.strategy, self.pruning);
        if let Some(ps) = pruning.covered(self, &st, key, &sleep) {
            self.stats.partial_runs += 1;
            self.stats.pruned_branches += 1;
            self.directed_end(&st, PathEnd::Pruned);
            strategy.on_prune(self, &st, key);
            return self.apply_seg(&seg, ps);
        }
        self.open_push(key);
        // The branch condition over the state variables of this node.
        let mut wp = Cond::C(false);
        let mut alts = alts;
        self.directed_order_alts(&st, tid, &mut alts);
        if self.diff_dead(&st) {
            // no target reachable: one side is enough
            alts.truncate(1);
        }
        for (cond, condsv, target) in alts {
            if self.stop {
                break;
            }
            let mut child = st.clone();
            child.pcon.push(cond);
            self.directed_push(&mut child, tid, target);
            if let Err(stop) = self.jump(&mut child, tid, target) {
                if let Stop::Cut = stop {
                    self.note_cut(&child, tid);
                    child.threads[tid].status = TStatus::Cut;
                    child.threads[tid].tail = false;
                    child.threads[tid].atomic = 0;
                    let w = self.explore_sched(child, tid, sleep.clone());
                    wp = pruning.or_side(self, wp, &condsv, &w);
                } else {
                    self.end_path(&child, tid, stop);
                }
                continue;
            }
            let w = self.run_thread(child, tid, first, sleep.clone());
            wp = pruning.or_side(self, wp, &condsv, &w);
        }
        self.open.pop();
        if !self.stop && self.diff_may_record(&st) {
            pruning.record(self, key, &wp, &sleep);
        }
        self.apply_seg(&seg, wp)
    }
}
