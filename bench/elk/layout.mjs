// The Eclipse Layout Kernel's drawing of one graph, for bench/render.py: an ELK JSON graph
// ({children: [{id, width, height}], edges: [{id, sources: [id], targets: [id]}]}) on stdin;
// on stdout {width, height, nodes: {id: [x, y, width, height]}, edges: [{id, source, target,
// points: [[x, y], ...]}]}, the points as drawn (start, bends, end; every section in turn).
import { readFileSync } from "node:fs";
import ELK from "elkjs/lib/elk.bundled.js";

const graph = JSON.parse(readFileSync(0, "utf8"));
const laid = await new ELK().layout(
  { id: "root", ...graph },
  {
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.edgeRouting": "POLYLINE",
      "elk.layered.spacing.nodeNodeBetweenLayers": "40",
      "elk.spacing.nodeNode": "12",
    },
  },
);
const nodes = {};
for (const node of laid.children ?? []) {
  nodes[node.id] = [node.x, node.y, node.width, node.height];
}
// a flat graph: every edge's coordinates are the root's, as the nodes' are
const edges = (laid.edges ?? []).map((edge) => {
  const points = [];
  for (const section of edge.sections ?? []) {
    for (const point of [section.startPoint, ...(section.bendPoints ?? []), section.endPoint]) {
      points.push([point.x, point.y]);
    }
  }
  return { id: edge.id, source: edge.sources[0], target: edge.targets[0], points };
});
process.stdout.write(JSON.stringify({ width: laid.width, height: laid.height, nodes, edges }));
