"""Users (admins only): every account with its role, last sign-in and lock; add an
account, change a role or a password, remove an account.

The rules are the store's (``dashboard.store.users``), the same as for ``python -m
dashboard.users``: names checked, passwords 8 characters to 72 bytes and typed twice,
the only admin neither removed nor demoted. Every action checks, on the server, that
this session still belongs to an admin (``views/login.require``) before it changes
anything. A new password or a removal signs that user out at their next click; the
admin's own included.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.store import Store
from dashboard.store.users import (ROLES, UserError, UserView, add_user, list_users, remove_user, set_password,
                                   set_role)
from dashboard.views.login import require
from dashboard.views.page_context import current


def user_rows(users: list[UserView]) -> list[dict[str, Any]]:
    return [{"name": u.name, "role": u.role,
             "last sign-in": f"{u.last_login_at:%Y-%m-%d %H:%M} UTC" if u.last_login_at else "never",
             "locked until": f"{u.locked_until:%H:%M:%S} UTC" if u.locked_until else "",
             "since": f"{u.created_at:%Y-%m-%d}"} for u in users]


def same_password(password: str, again: str) -> str:
    if password != again:
        raise UserError("the two passwords differ")
    return password


def act(done: str, change: Any, *args: Any) -> None:
    """Run one change of the store (after the role check); say what happened."""
    if not require("manage_users"):
        return
    try:
        change(*args)
    except UserError as exc:
        st.error(str(exc)[:1].upper() + str(exc)[1:] + ".")
        return
    st.session_state["users_message"] = done
    st.rerun()


def add_form(store: Store) -> None:
    with st.form("users_add", clear_on_submit=True):
        st.markdown("**Add a user**")
        c1, c2 = st.columns(2)
        name = c1.text_input("Name", max_chars=32, key="users_add_name", help="1 to 32 of a-z, 0-9, _ . -")
        role = c2.selectbox("Role", ROLES, index=ROLES.index("player"), key="users_add_role")
        c3, c4 = st.columns(2)
        password = c3.text_input("Password", type="password", max_chars=200, key="users_add_password",
                                 autocomplete="new-password")
        again = c4.text_input("Password again", type="password", max_chars=200, key="users_add_again",
                              autocomplete="new-password")
        submitted = st.form_submit_button("Add user", type="primary")
    if submitted:
        act(f"Added {name.strip().lower()} ({role}).",
            lambda: add_user(store, name, same_password(password, again), role))


def change_forms(store: Store, names: list[str]) -> None:
    left, right = st.columns(2, gap="large")
    with left, st.form("users_role"):
        st.markdown("**Change a role**")
        who = st.selectbox("User", names, key="users_role_name")
        role = st.selectbox("New role", ROLES, key="users_role_role")
        if st.form_submit_button("Change role"):
            act(f"{who} is now {role}.", set_role, store, who, role)
    with right, st.form("users_password", clear_on_submit=True):
        st.markdown("**Set a new password**")
        who = st.selectbox("User", names, key="users_password_name")
        password = st.text_input("New password", type="password", max_chars=200, key="users_password_new",
                                 autocomplete="new-password")
        again = st.text_input("New password again", type="password", max_chars=200, key="users_password_again",
                              autocomplete="new-password")
        if st.form_submit_button("Set password"):
            act(f"Changed the password of {who}.", lambda: set_password(store, who, same_password(password, again)))
    with st.form("users_remove"):
        st.markdown("**Remove a user**")
        who = st.selectbox("User", names, key="users_remove_name")
        sure = st.checkbox("Yes, remove this user", key="users_remove_sure")
        if st.form_submit_button("Remove user") and sure:
            act(f"Removed {who}.", remove_user, store, who)


def render() -> None:
    store = current().store
    st.title("Users")
    if not require("manage_users"):
        return
    message = st.session_state.pop("users_message", None)
    if message:
        st.success(message)
    users = list_users(store)
    st.caption(f"{len(users)} user{'s' if len(users) != 1 else ''} · viewer: sees the pages · player: also plays, "
               "asks the engine, imports and downloads SGF · admin: also renames and deletes games and manages users")
    if users:
        st.dataframe(user_rows(users), hide_index=True, width="stretch")
    add_form(store)
    if users:
        change_forms(store, [u.name for u in users])


if __name__ == "__main__":
    render()
