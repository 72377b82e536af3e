-- Full-text search over the SAT catalogs that are too big to browse (c_ClaveProdServ, c_ClaveUnidad): description
-- and SAT's "palabras similares", tokenized without accents ("credito" finds "Crédito"). Filled by seedCatalogs.
CREATE VIRTUAL TABLE `catalog_search` USING fts5(`catalog` UNINDEXED, `clave` UNINDEXED, `texto`, tokenize = 'unicode61 remove_diacritics 2');
