<?php
// The shared test site's application: what Lazarus preserves and
// recovery must give back byte for byte.
$config = parse_ini_file(__DIR__ . '/../etc/app.conf');
header('Content-Type: text/plain; charset=utf-8');
echo "Hello from ", $config['name'], "\n";
