//! Pictures of the graph: Graphviz dot and Mermaid.
//!
//! Node size follows importance (the summed weight of a node's edges), edge style follows
//! the type, and the label is the weight.

use std::fmt::Write;

use crate::event::{EdgeType, NodeKind};
use crate::graph::Graph;

fn dot_style(t: EdgeType) -> &'static str {
    match t {
        EdgeType::Uses => "style=solid, color=\"#1f77b4\"",
        EdgeType::LearnsFrom => "style=dashed, color=\"#2ca02c\"",
        EdgeType::TestsWith => "style=bold, color=\"#d62728\"",
        EdgeType::Sibling => "style=dotted, color=\"#9467bd\", dir=none",
        EdgeType::Domain => "style=dotted, color=\"#7f7f7f\"",
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Graphviz dot.
pub fn dot(graph: &Graph) -> String {
    let max = graph.nodes.iter().map(|n| n.importance).fold(0.0f64, f64::max).max(1e-9);
    let mut out = String::from(
        "digraph patina {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n",
    );
    for n in &graph.nodes {
        let scale = n.importance / max;
        let fill = if n.kind == NodeKind::Project { "#ffe8a3" } else { "#e8eef7" };
        let _ = writeln!(
            out,
            "  {} [fontsize={:.0}, width={:.2}, fillcolor=\"{fill}\", tooltip={}];",
            quote(&n.id),
            10.0 + 14.0 * scale,
            0.6 + 1.4 * scale,
            quote(n.summary.as_deref().unwrap_or(""))
        );
    }
    for e in &graph.edges {
        let _ = writeln!(
            out,
            "  {} -> {} [label={}, {}, penwidth={:.1}];",
            quote(&e.from),
            quote(&e.to),
            quote(&format!("{} {:.2}", e.edge_type, e.weight)),
            dot_style(e.edge_type),
            0.5 + 2.5 * e.weight
        );
    }
    out.push_str("}\n");
    out
}

fn mermaid_id(id: &str) -> String {
    let mut s: String = id.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    s.insert_str(0, "n_");
    s
}

/// Mermaid flowchart.
pub fn mermaid(graph: &Graph) -> String {
    let max = graph.nodes.iter().map(|n| n.importance).fold(0.0f64, f64::max).max(1e-9);
    let mut out = String::from("flowchart LR\n");
    out.push_str("  classDef big font-size:20px,stroke-width:3px;\n  classDef mid font-size:15px,stroke-width:2px;\n  classDef small font-size:11px;\n  classDef project fill:#ffe8a3;\n");
    for n in &graph.nodes {
        let tier = match n.importance / max {
            x if x > 0.66 => "big",
            x if x > 0.2 => "mid",
            _ => "small",
        };
        let _ = writeln!(out, "  {}[\"{}\"]:::{tier}", mermaid_id(&n.id), n.id.replace('"', "'"));
        if n.kind == NodeKind::Project {
            let _ = writeln!(out, "  class {} project", mermaid_id(&n.id));
        }
    }
    for e in &graph.edges {
        let arrow = match e.edge_type {
            EdgeType::Uses => "-->",
            EdgeType::LearnsFrom => "-.->",
            EdgeType::TestsWith => "==>",
            EdgeType::Sibling => "---",
            EdgeType::Domain => "-.-",
        };
        let _ = writeln!(
            out,
            "  {} {arrow}|\"{} {:.2}\"| {}",
            mermaid_id(&e.from),
            e.edge_type,
            e.weight,
            mermaid_id(&e.to)
        );
    }
    out
}
