CREATE TABLE `catalog_entries` (
	`catalog` text NOT NULL,
	`clave` text NOT NULL,
	`descripcion` text,
	`valid_from` text,
	`valid_to` text,
	`data` text NOT NULL,
	PRIMARY KEY(`catalog`, `clave`)
);
