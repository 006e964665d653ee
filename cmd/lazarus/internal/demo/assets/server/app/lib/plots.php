<?php
function list_plots(PDO $db): array {
    return $db->query('SELECT plot, gardener, since FROM plots ORDER BY plot')->fetchAll(PDO::FETCH_ASSOC);
}
function render_plots(array $rows): string {
    $out = "<table>\n";
    foreach ($rows as $r) {
        $out .= sprintf("<tr><td>%d</td><td>%s</td><td>%s</td></tr>\n", $r['plot'], htmlspecialchars($r['gardener']), $r['since']);
    }
    return $out . "</table>\n";
}
