//! Differential test: the generated ascent and crepe programs agree.

mod asc {
    include!("generated/tc_ascent.rs");
}
include!("generated/tc_crepe.rs");

/// Tiny deterministic generator (no rand dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as u32
    }
}

#[test]
fn tc_expected_answers() {
    let mut i = asc::Input::default();
    for (a, b) in [(1, 2), (2, 3), (3, 1), (4, 5)] {
        i.push_row("edge", &[a, b]).unwrap();
    }
    for n in 1..=5 {
        i.push_row("node", &[n]).unwrap();
    }
    i.push_row("node", &[10]).unwrap();
    assert!(i.push_row("edge", &[1]).is_err());
    assert!(i.push_row("nope", &[1]).is_err());
    let o = asc::run(&i);
    assert!(
        o.reach.contains(&(1, 1)) && o.reach.contains(&(4, 5)) && o.reach.contains(&(100, 101))
    );
    assert!(!o.reach.contains(&(4, 1)));
    assert_eq!(o.on_cycle, vec![(1,), (2,), (3,)]);
    assert_eq!(o.sink, vec![(5,)]);
    assert_eq!(o.reaches_target, vec![(1,), (2,), (3,), (5,)]);
    assert!(
        o.unreach.contains(&(4, 1)) && o.unreach.contains(&(10, 1)) && !o.unreach.contains(&(1, 3))
    );
    assert_eq!(o.rows("sink"), Some(vec![vec![5]]));
    assert_eq!(o.rows("helper"), None);
    assert_eq!(asc::OUTPUT_RELATIONS.len(), 8);
    assert_eq!(
        (o.type_rel.clone(), o.sink_copy.clone(), o.crepe.clone()),
        (vec![(1,)], vec![(5,)], vec![(5,)])
    );
    assert_eq!(asc::INPUT_RELATIONS, &[("edge", 2), ("node", 1)]);

    let c = tc_crepe::Input {
        edge: i.edge.clone(),
        node: i.node.clone(),
    };
    let oc = tc_crepe::run(&c);
    assert_eq!(format!("{o:?}"), format!("{oc:?}"));
}

#[test]
fn tc_engines_agree_on_random_graphs() {
    let mut rng = Lcg(7);
    for round in 0..40 {
        let n = 2 + rng.next(12);
        let m = rng.next(3 * n);
        let mut a = asc::Input::default();
        let mut c = tc_crepe::Input::default();
        for _ in 0..m {
            let e = (rng.next(n), rng.next(n));
            a.edge.push(e);
            c.edge.push(e);
        }
        for v in 0..n {
            if rng.next(4) != 0 {
                a.node.push((v,));
                c.node.push((v,));
            }
        }
        let (oa, oc) = (asc::run(&a), tc_crepe::run(&c));
        assert_eq!(oa.reach, oc.reach, "round {round}");
        assert_eq!(oa.unreach, oc.unreach, "round {round}");
        assert_eq!(oa.on_cycle, oc.on_cycle, "round {round}");
        assert_eq!(oa.sink, oc.sink, "round {round}");
        assert_eq!(oa.reaches_target, oc.reaches_target, "round {round}");
    }
}
