"""Generic CRUD helpers shared by the concrete repositories."""

from shop.errors import NotFound


class BaseRepository:
    table = None

    def __init__(self, db):
        self.db = db

    def _insert(self, row):
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cursor = self.db.execute(
            "INSERT INTO %s (%s) VALUES (%s)" % (self.table, columns, marks),
            tuple(row.values()),
        )
        return cursor.lastrowid

    def _get(self, row_id):
        return self.db.query_one("SELECT * FROM %s WHERE id = ?" % self.table, (row_id,))

    def _require(self, row_id):
        row = self._get(row_id)
        if row is None:
            raise NotFound("%s %s not found" % (self.table.rstrip("s"), row_id))
        return row

    def _update(self, row_id, **fields):
        assignments = ", ".join("%s = ?" % name for name in fields)
        self.db.execute(
            "UPDATE %s SET %s WHERE id = ?" % (self.table, assignments),
            tuple(fields.values()) + (row_id,),
        )

    def _where(self, clause="1 = 1", params=(), order_by="id"):
        return self.db.query(
            "SELECT * FROM %s WHERE %s ORDER BY %s" % (self.table, clause, order_by), params
        )

    def count(self):
        return self.db.query_one("SELECT COUNT(*) AS n FROM %s" % self.table)["n"]
