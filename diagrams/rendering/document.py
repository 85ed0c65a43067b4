"""ProjectGraph (interface §9): the graph and its layout as JSON, in the SVG's coordinates."""

import networkx as nx

from diagrams.rendering.layout import Layout


def project_graph_json(
    graph: nx.DiGraph,
    layout: Layout,
    *,
    project_id: str,
    at: str | None,
    filtered_ids: list[str],
    depth: int | None,
    width: float,
    height: float,
) -> dict:
    """`{projectId, at, filteredIds, depth, width, height, nodes, edges, categories}`."""
    nodes = []
    for node_id, box in layout.nodes.items():
        data = graph.nodes[node_id]
        nodes.append(
            {
                "id": node_id,
                "type": data["type"],
                "label": data["label"],
                "category": data.get("category"),
                "owner": data.get("owner"),
                "color": data["color"],
                "x": box.x,
                "y": box.y,
                "width": box.width,
                "height": box.height,
            }
        )
    edges = [
        {
            "id": f"{route.source}->{route.target}",
            "source": route.source,
            "target": route.target,
            "kind": route.kind,
            "points": [[x, y] for x, y in route.points],
        }
        for route in layout.edges
    ]
    categories = {}
    for _, data in graph.nodes(data=True):
        if data.get("category"):
            categories[data["category"]] = (data["category_id"], data["color"])
    return {
        "projectId": project_id,
        "at": at,
        "filteredIds": filtered_ids,
        "depth": depth,
        "width": width,
        "height": height,
        "nodes": nodes,
        "edges": edges,
        "categories": [
            {"id": category_id, "name": name, "color": color}
            for name, (category_id, color) in sorted(categories.items())
        ],
    }
