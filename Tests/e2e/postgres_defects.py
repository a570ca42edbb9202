"""What the server does wrong on PostgreSQL today, found by running the suite in that mode
(store_mode.py), each a strict xfail there that names the defect: the SQL and its SQLSTATE
as the server's log gives them, or what it does instead. A test that fails for one of them is
marked with it; when the server is fixed, the test passes, the xfail turns red, and its mark
comes off. Nothing here is skipped, and nothing changes in the SQLite mode."""

from store_mode import fails_on_postgres

# InboxSQL.dropOldestUnread: `LIMIT max(0, ...)` is SQLite's scalar max(). Every item put in an
# inbox (a message, a person's task change, an answer) answers 500.
INBOX_TRIM = fails_on_postgres("InboxSQL.dropOldestUnread's `LIMIT max(0, ...)`: 42883 undefined function; every new "
                               "inbox item (a message, a person's task change, an answer) is a 500")

# TaskSQL.get and getForChange: `($3 IS NULL OR t.key_id = $3)` gives $3 no type.
TASK_BY_ID = fails_on_postgres("TaskSQL.get/getForChange's `$3 IS NULL OR t.key_id = $3`: 42P08 indeterminate "
                               "datatype; reading, changing or deleting a task by its ID is a 500")

# Question+Row's lists: `q.status IN (SELECT value FROM json_each($2))` is SQLite's JSON.
QUESTION_LIST = fails_on_postgres("the question lists' `json_each($2)`: 42883 undefined function; GET /v1/questions "
                                  "is a 500")

# OutboxSQL.pruneWindows: `last_sent_at < $1 - $2`, two parameters of no type.
PUSH_WINDOWS = fails_on_postgres("OutboxSQL.pruneWindows' `last_sent_at < $1 - $2`: 42725 ambiguous operator; with "
                                 "APNs configured every recorded change is a 500")

# APIHandler+Delivery: a stream's body that awaited the store (PostgreSQL's does) finds its
# request parked, and `.stream` on a parked channel is answered as a defect.
PARKED_STREAM = fails_on_postgres("an event stream whose task awaited the store is answered 500 "
                                  "('defect: a stream after a wait for the write lock', APIHandler+Delivery)")

# Daemon's stop: the store stops before the Web Push dispatcher gives its leases back.
STOP_ORDER = fails_on_postgres("at a stop the store is stopped before the Web Push dispatcher gives back its messages "
                               "in flight ('could not give back ... unavailable'): they wait for their 120 s lease")

# A question's wait that ends at its time: the parked request's own timer fires first ('a
# parked request was not answered when its time was up') and the call gets a 500.
WAIT_TIMEOUT = fails_on_postgres("a wait that reaches its time answers 500: the parked request's timer ends it first "
                                 "('a parked request was not answered when its time was up')")

# One connection serves every body in turn (no pool for reads yet): under the load of many
# large lists, requests wait in line past the write-lock wait and answer 503.
ONE_CONNECTION = fails_on_postgres("one connection serves every request in turn: under many large lists, requests wait "
                                   "past the write-lock wait and answer 503 unavailable")
