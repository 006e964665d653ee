<?php
// Riverside Community Garden: the members' area.
require __DIR__ . '/lib/db.php';
require __DIR__ . '/lib/plots.php';
$db = garden_db(require __DIR__ . '/../config/app.php');
echo render_plots(list_plots($db));
