<?php
return [
    'dsn' => 'sqlite:/var/lib/garden/garden.db',
    'user' => null,
    'password' => null,
    'session_secret' => 'b7c1e0f4a9d2435e8f61c2a0d9e7b3f1',
];
