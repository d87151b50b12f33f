use schemalect::{LowerOptions, ParseOptions, Profile, Schema, Subset, Target};
use serde_json::Value;
use support::contract;

#[test]
fn scratch() {
    let text = std::fs::read_to_string("/tmp/scratch/cases.json").unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    for c in cases {
        let s = &c["schema"];
        let xs: Vec<Value> = c["values"].as_array().unwrap().clone();
        let schema = Schema::parse_with(s, &ParseOptions::default().with_subset(Subset::Extended)).unwrap();
        for x in &xs { println!("valid {}: {}", x, schema.is_valid(x)); }
        for t in Target::ALL {
            for p in Profile::ALL {
                let l = schema.lower(t, &LowerOptions::default().with_profile(p));
                match contract::check_lowering(s, &l, p, &xs, &[]) {
                    Ok(_) => {}
                    Err(e) => println!("{}\n", e),
                }
            }
        }
        println!("=====");
    }
}
