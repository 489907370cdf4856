-- The count of committed writes that change who may do what (keys, sessions, members, projects):
-- bumped in the transaction of every such write (with its change notice). Each process reads it
-- (one row) before using a cached key, session or project lookup, and drops them all when it moved,
-- so a revoked key or ended membership is refused by every process from the moment it commits.
CREATE TABLE auth_change_counter (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  counter    integer NOT NULL
);
INSERT INTO auth_change_counter (singleton, counter) VALUES (true, 0);
