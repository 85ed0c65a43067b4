"""Consistency of the stored history, checked in the database after a load or a fault
(bench/soak.py, archsvc/tests/test_load.py, archsvc/tests/test_faults.py). Plain SQL on
any DB-API cursor (Django's, or psycopg's on a database of its own), so it reads what is
stored, not what the models make of it."""

from datetime import UTC, datetime

SERVICES_SQL = """
SELECT s.id, s.project_id, COUNT(ss.id),
       SUM(CASE WHEN ss.valid_until IS NULL THEN 1 ELSE 0 END),
       MIN(ss.version), MAX(ss.version),
       SUM(CASE WHEN ss.project_id <> s.project_id THEN 1 ELSE 0 END)
FROM diagrams_service s LEFT JOIN diagrams_servicesnapshot ss ON ss.service_id = s.id
GROUP BY s.id, s.project_id
HAVING COUNT(ss.id) = 0
    OR SUM(CASE WHEN ss.valid_until IS NULL THEN 1 ELSE 0 END) <> 1
    OR MIN(ss.version) <> 1 OR MAX(ss.version) <> COUNT(ss.id)
    OR SUM(CASE WHEN ss.project_id <> s.project_id THEN 1 ELSE 0 END) > 0
"""

CHAIN_SQL = """
SELECT service_id, version, action, deleted, valid_from, valid_until, next_version, next_from
FROM (SELECT service_id, version, action, deleted, valid_from, valid_until,
             LEAD(version) OVER w AS next_version, LEAD(valid_from) OVER w AS next_from
      FROM diagrams_servicesnapshot
      WINDOW w AS (PARTITION BY service_id ORDER BY version)) chain
WHERE (next_version IS NULL AND valid_until IS NOT NULL)
   OR (next_version IS NOT NULL AND (valid_until IS NULL OR valid_until <> next_from
       OR next_version <> version + 1 OR deleted))
   OR ((version = 1) <> (action = 'created'))
   OR (deleted <> (action = 'deleted'))
"""

PROJECTS_SQL = """
SELECT p.id, p.service_count, p.updated_at,
       (SELECT COUNT(*) FROM diagrams_servicesnapshot ss
        WHERE ss.project_id = p.id AND ss.valid_until IS NULL AND NOT ss.deleted),
       (SELECT MAX(ss.valid_from) FROM diagrams_servicesnapshot ss WHERE ss.project_id = p.id)
FROM diagrams_project p
"""


def _instant(value):
    """A timestamp as an aware datetime: SQLite gives MAX() of a timestamp column back as its
    stored text ("2026-11-21 16:45:00"), the column itself as a datetime."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def history_problems(cursor, *, exact_updated_at: bool = True) -> tuple[list[str], dict]:
    """Every project's history checked in the database (any DB-API cursor): the problems found
    and what was checked."""
    # each service: snapshots 1..n, one current (the last), each ending where the next begins,
    # a tombstone only last; each project: service_count = its live services, updated_at moved
    # with its last service write (`exact_updated_at`: equal, when no project-only writes)
    problems = []
    cursor.execute(SERVICES_SQL)
    for service, project, count, current, first, last, foreign in cursor.fetchall():
        problems.append(
            f"service {service} of {project}: {count} snapshots, {current} "
            f"current, versions {first}..{last}, {foreign} in another project"
        )
    cursor.execute(CHAIN_SQL)
    for (
        service,
        version,
        action,
        deleted,
        start,
        until,
        next_version,
        next_from,
    ) in cursor.fetchall():
        problems.append(
            f"service {service} v{version} ({action}, deleted={deleted}) "
            f"{start}..{until}, next v{next_version} from {next_from}"
        )
    cursor.execute(PROJECTS_SQL)
    projects = cursor.fetchall()
    for project, service_count, updated_at, live, newest in projects:
        updated_at = _instant(updated_at)
        newest = None if newest is None else _instant(newest)
        if service_count != live:
            problems.append(f"project {project}: service_count {service_count}, live {live}")
        if newest is not None and (
            updated_at < newest or (exact_updated_at and updated_at != newest)
        ):
            problems.append(f"project {project}: updated_at {updated_at}, newest snapshot {newest}")
    cursor.execute("SELECT COUNT(*) FROM diagrams_service")
    services = cursor.fetchone()[0]
    cursor.execute("SELECT COUNT(*) FROM diagrams_servicesnapshot")
    snapshots = cursor.fetchone()[0]
    return problems, {"projects": len(projects), "services": services, "snapshots": snapshots}


def client_problems(cursor, workers: list) -> tuple[list[str], dict]:
    """What the clients were told against what the database holds: the problems, and how many
    failed writes were in fact applied."""
    # an acknowledged write is stored exactly once, a failed one at most once (whole or not at
    # all); live services are those made and not deleted, with their last description, plus
    # only services whose last write failed (outcome unknown)
    problems = []
    writes = [w for worker in workers for w in worker.writes]
    cursor.execute(
        "SELECT description, COUNT(*), MIN(version), MAX(action) FROM "
        "diagrams_servicesnapshot WHERE NOT deleted GROUP BY description"
    )
    marked = {row[0]: row[1:] for row in cursor.fetchall()}
    cursor.execute(
        "SELECT project_id, slug, COUNT(*) FROM diagrams_servicesnapshot "
        "WHERE deleted AND valid_until IS NULL GROUP BY project_id, slug"
    )
    tombstones = {(row[0], row[1]): row[2] for row in cursor.fetchall()}
    applied_failures = failed = 0
    for write in writes:
        if write.op == "delete":
            found = tombstones.get((write.project, write.slug), 0)
        else:
            found, version, _ = marked.get(write.marker, (0, None, None))
            if found and (version == 1) != (write.op == "create"):
                problems.append(f"{write.op} {write.marker}: stored as version {version}")
        if write.ok and found != 1:
            problems.append(
                f"acknowledged {write.op} {write.marker or write.slug} in "
                f"{write.project}: found {found} times"
            )
        elif not write.ok:
            failed += 1
            applied_failures += found > 0
            if found > 1:
                problems.append(f"failed {write.op} {write.marker}: found {found} times")
    cursor.execute(
        "SELECT project_id, slug, description FROM diagrams_servicesnapshot "
        "WHERE valid_until IS NULL AND NOT deleted"
    )
    stored: dict[str, dict[str, str]] = {}
    for project, slug, description in cursor.fetchall():
        stored.setdefault(project, {})[slug] = description
    projects = {p for worker in workers for p in worker.live}
    for project in sorted(projects):
        expected = {s: d for w in workers for s, d in w.live.get(project, {}).items()}
        unknown = {s for w in workers for s in w.unknown.get(project, ())}
        have = stored.get(project, {})
        for slug, description in expected.items():
            if have.get(slug) != description:
                problems.append(
                    f"{project}/{slug}: expected {description!r}, stored {have.get(slug)!r}"
                )
        for slug in set(have) - set(expected) - unknown:
            problems.append(f"{project}/{slug}: live but no client made it")
    return problems, {
        "writes": len(writes),
        "failed_writes": failed,
        "failed_but_applied": applied_failures,
    }
