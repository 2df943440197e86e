"""Append-only audit trail."""

from shop.repository.base import BaseRepository


class AuditRepository(BaseRepository):
    table = "audit_log"

    def record(self, actor, action, detail=""):
        return self._insert({"actor": actor, "action": action, "detail": detail})

    def recent(self, limit=20):
        return self.db.query("SELECT * FROM audit_log ORDER BY id DESC LIMIT ?", (limit,))

    def by_actor(self, actor):
        return self._where("actor = ?", (actor,))
