"""User rows."""

from shop.repository.base import BaseRepository


class UserRepository(BaseRepository):
    table = "users"

    def add(self, email, password_hash, name="", roles=("customer",)):
        return self._insert(
            {
                "email": email,
                "password_hash": password_hash,
                "name": name,
                "roles": ",".join(roles),
                "active": 1,
            }
        )

    def get(self, user_id):
        return self._get(user_id)

    def by_email(self, email):
        return self.db.query_one("SELECT * FROM users WHERE email = ?", (email,))

    def set_password(self, user_id, password_hash):
        self._update(user_id, password_hash=password_hash)

    def set_active(self, user_id, active):
        self._update(user_id, active=1 if active else 0)

    def all_active(self):
        return self._where("active = 1")
