-- One meta entry per vector table (memory/store/vectors.py):
--   'vec_table:<table>' -> {"kind": ..., "dim": ..., "digest": ..., "name": ...}
-- Earlier releases wrote two forms; both are rewritten here, the tables themselves are unchanged.

-- Profile and episode tables: 'vec_table:<table>' -> the embedder digest alone. Their names are
-- memory_{profile,episode}_vec_<dim>_<12 hex>; the prefix with 'vec_table:' is 29 characters.
UPDATE meta SET value = json_object(
    'kind', 'profile',
    'dim', CAST(substr(key, 30, length(key) - 42) AS INTEGER),
    'digest', value,
    'name', NULL
)
WHERE substr(key, 1, 29) = 'vec_table:memory_profile_vec_';

UPDATE meta SET value = json_object(
    'kind', 'episode',
    'dim', CAST(substr(key, 30, length(key) - 42) AS INTEGER),
    'digest', value,
    'name', NULL
)
WHERE substr(key, 1, 29) = 'vec_table:memory_episode_vec_';

-- Note tables: 'memory_vectors:<digest>' -> {"table": ..., "dim": ..., "name": ...}.
INSERT OR IGNORE INTO meta (key, value)
SELECT 'vec_table:' || json_extract(value, '$.table'),
       json_object(
           'kind', 'note',
           'dim', json_extract(value, '$.dim'),
           'digest', substr(key, 16),
           'name', json_extract(value, '$.name')
       )
FROM meta
WHERE substr(key, 1, 15) = 'memory_vectors:';

DELETE FROM meta WHERE substr(key, 1, 15) = 'memory_vectors:';
