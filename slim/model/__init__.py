"""Pure data: labels, the graph, facts, findings, actions, options, the report."""
