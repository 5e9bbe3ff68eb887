# famfsd's REST API from the test scripts, over its Unix socket.
# api_at SOCK METHOD PATH [JSON]: sets STATUS (the HTTP status) and BODY.
api_at() {
	local out
	if [ $# -ge 4 ]; then
		out=$(curl -s --unix-socket "$1" -X "$2" -H 'Content-Type: application/json' \
			--data-binary "$4" -w '\n%{http_code}' "http://famfsd$3")
	else
		out=$(curl -s --unix-socket "$1" -X "$2" -w '\n%{http_code}' "http://famfsd$3")
	fi
	STATUS=${out##*$'\n'}
	BODY=${out%$'\n'*}
}
